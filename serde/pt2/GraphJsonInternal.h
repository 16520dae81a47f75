// What the two halves of the graph JSON reader share: the parse state (schema
// form, symbolic sizes seen, subgraph depth) and the graph-level parsers
// (GraphJsonGraph.cpp) that the signature and document code (GraphJson.cpp)
// calls. Private to serde/pt2; throws Pt2Error like the rest of the reader.
#ifndef PTEC_SERDE_PT2_GRAPHJSONINTERNAL_H
#define PTEC_SERDE_PT2_GRAPHJSONINTERNAL_H

#include "serde/pt2/GraphJson.h"
#include "serde/pt2/JsonRead.h"
#include "serde/pt2/SchemaHistory.h"

#include <string>
#include <vector>

namespace ptec::pt2 {
namespace graphjson {

struct SymbolicUse {
  std::string tensor;
  std::string what;  // "dimension 0", "stride 1", "storage offset"
  std::string expr;
};

struct ParseState {
  SchemaForm form;                    // how this document spells things
  std::vector<SymbolicUse> symbolic;  // first one per tensor
  int graphDepth = 0;                 // nesting of as_graph subgraphs
};

// Returns false and fills `use` when some size/stride/offset is symbolic.
bool tensorMeta(const json &j, const Where &w, const SchemaForm &form, TensorMeta &meta,
                SymbolicUse &use, bool symbolicSizesRejected = false);
std::string tensorName(const json &j, const Where &w);
Argument parseArgument(const json &j, const Where &w, ParseState &st);
Graph parseGraph(const json &j, const Where &w, ParseState &st);

}  // namespace graphjson
}  // namespace ptec::pt2

#endif  // PTEC_SERDE_PT2_GRAPHJSONINTERNAL_H
