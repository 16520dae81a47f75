// What a file holds, from its first bytes, whatever its name says: every
// tool looks before it reads, so that a file given to the wrong tool gets
// one line saying what it is and which tool takes it, instead of a parser
// error about its bytes ("bad magic", "brackets nest too deep").
//
// The signatures (docs/tools/README.md#file-kinds):
//   .pt2 (torch.export.save)      a zip archive ("PK\3\4") holding JSON (the graph)
//   torch.save / TorchScript      a zip archive with "<name>/data.pkl" and no JSON
//   .pte (ExecuTorch program)     "ET" and two digits at offset 4 ("ET12")
//   .bpte (bundled program)       "BP" and two digits at offset 4
//   .ptd (FlatTensor named data)  "FT" and two digits at offset 4 ("FT01")
//   .npy                          "\x93NUMPY" at offset 0
//   MLIR bytecode                 "ML\xefR" at offset 0
//   MLIR text                     text whose first token starts an MLIR module
#ifndef PTEC_SERDE_IO_CONTENTKIND_H
#define PTEC_SERDE_IO_CONTENTKIND_H

#include <string>
#include <string_view>

namespace ptec::io {

enum class ContentKind {
  Empty,        ///< no bytes
  Pt2,          ///< a zip archive, taken to be torch.export.save's
  TorchSave,    ///< a zip archive of torch.save or torch.jit.save
  Pte,          ///< an ExecuTorch program
  BundledPte,   ///< an ExecuTorch bundled program
  Ptd,          ///< FlatTensor named data (external weights)
  Npy,          ///< a NumPy array
  MlirBytecode, ///< MLIR bytecode
  MlirText,     ///< MLIR text (exir IR)
  Text,         ///< other text
  Binary,       ///< other bytes
};

/// How many bytes from the start sniffContent wants (fewer is fine).
constexpr size_t kSniffHeadBytes = 4096;
/// How many bytes from the end it wants for a zip archive (the central
/// directory, where the entry names are).
constexpr size_t kSniffTailBytes = 65536;

/// The kind of a file whose first bytes are `head` and, for a zip, whose
/// last bytes are `tail` (empty: a zip is taken to be a .pt2).
ContentKind sniffContent(std::string_view head, std::string_view tail = {});

/// Reads what sniffContent needs from `path`. False (with *err set, the
/// reason without the path) when it cannot be read.
bool sniffFile(const std::string &path, ContentKind *kind, std::string *err);

/// "a PyTorch exported program (.pt2)", "an ExecuTorch program (.pte)", ...
const char *describeContent(ContentKind kind);

/// What takes a file of this kind, with `path` in the command shown: "compile
/// it with aot-compile: aot-compile m.pt2 -o m.pte"; "" when no tool does.
std::string contentUse(ContentKind kind, const std::string &path);

/// The line a tool prints for a file of the wrong kind (without the tool's
/// name): "<subject> is a PyTorch exported program (.pt2, ...), not
/// <wanted>; compile it with aot-compile: aot-compile m.pt2 -o model.pte".
/// `subject` defaults to `path` ("this file" where the line already names
/// it); `use`, when given, replaces what contentUse says.
std::string wrongContentMessage(const std::string &path, ContentKind kind,
                                const std::string &wanted, const std::string &subject = "",
                                const std::string &use = "");

} // namespace ptec::io

#endif // PTEC_SERDE_IO_CONTENTKIND_H
