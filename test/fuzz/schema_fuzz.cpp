// libFuzzer target for the ATen schema parser. Invariants checked on every
// input: no crash; a failure carries a message and an in-range position; a
// success prints to a string that parses back to an equal schema and prints
// identically.
#include "dialects/exir/schema/OperatorSchema.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

using namespace ptec::schema;

namespace {
[[noreturn]] void broken(const char *what, const std::string &detail) {
  std::fprintf(stderr, "schema_fuzz: %s: %s\n", what, detail.c_str());
  std::abort();
}
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string text(reinterpret_cast<const char *>(data), size);
  ParseError err;
  std::optional<FunctionSchema> fs = parseSchema(text, &err);
  if (!fs) {
    if (err.message.empty() || err.position > size)
      broken("bad error report", err.message);
    return 0;
  }
  std::string printed = fs->str();
  ParseError err2;
  std::optional<FunctionSchema> again = parseSchema(printed, &err2);
  if (!again)
    broken("printed schema does not parse", printed + " (" + err2.message + ")");
  if (!(*again == *fs))
    broken("round trip changed the schema", printed);
  if (again->str() != printed)
    broken("printing is not stable", printed + " vs " + again->str());

  // Exercise the queries; they must not crash on anything the parser accepts.
  (void)fs->fullName();
  (void)fs->isMutable();
  (void)fs->isOutVariant();
  (void)fs->isInplace();
  (void)fs->outArguments();
  for (const Argument &a : fs->arguments) {
    (void)a.alias();
    (void)a.isOut();
    (void)a.type.isTensorLike();
    if (fs->findArgument(a.name) < 0)
      broken("findArgument misses an argument", a.name);
  }
  OperatorRegistry reg;
  if (fs->hasSignature && !reg.add(text, nullptr))
    broken("registry rejects a parsed schema", text);
  if (fs->hasSignature && !reg.lookup(fs->fullName()))
    broken("registry lookup misses an added schema", fs->fullName());
  return 0;
}
