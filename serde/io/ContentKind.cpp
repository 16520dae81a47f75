#include "serde/io/ContentKind.h"

#include "serde/io/InputFile.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace ptec::io {

namespace {

bool isDigit(char c) { return c >= '0' && c <= '9'; }

/// "XY" and two digits at offset 4: a FlatBuffers file identifier as
/// ExecuTorch writes them (ET12, FT01, BP08).
bool hasIdentifier(std::string_view head, const char *prefix) {
  return head.size() >= 8 && head[4] == prefix[0] && head[5] == prefix[1] && isDigit(head[6]) &&
         isDigit(head[7]);
}

/// Text: no NUL byte, and at most one control character in 20 (UTF-8 is
/// text too).
bool looksLikeText(std::string_view head) {
  size_t odd = 0;
  for (char c : head) {
    unsigned char u = static_cast<unsigned char>(c);
    if (u == 0)
      return false;
    if (u < 32 && c != '\n' && c != '\r' && c != '\t' && c != '\f')
      ++odd;
  }
  return odd * 20 <= head.size();
}

/// Whether text starts the way MLIR's printer starts a file: after blank
/// lines and `//` comments, `module`, an attribute or type alias (`#x =`,
/// `!x =`), a generic op (`"builtin.module"()`), an op result (`%0 =`), a
/// dialect op (`func.func`, `exir.weight`) or a resource section (`{-#`).
bool looksLikeMlirText(std::string_view text) {
  size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i])))
      ++i;
    if (text.substr(i, 2) != "//")
      break;
    size_t eol = text.find('\n', i);
    if (eol == std::string_view::npos)
      return false; // only comments so far (a 4 KiB comment block): not sure
    i = eol + 1;
  }
  std::string_view rest = text.substr(i);
  if (rest.empty())
    return false;
  if (rest.substr(0, 6) == "module" &&
      (rest.size() == 6 || std::isspace(static_cast<unsigned char>(rest[6])) || rest[6] == '{' ||
       rest[6] == '@'))
    return true;
  if (rest.substr(0, 3) == "{-#")
    return true;
  char c = rest[0];
  if (c == '#' || c == '!' || c == '%')
    return rest.size() > 1 && (std::isalnum(static_cast<unsigned char>(rest[1])) ||
                               rest[1] == '_' || rest[1] == '"');
  if (c == '"')
    return rest.find("\"(") != std::string_view::npos; // "dialect.op"(...)
  // dialect.op: letters, digits and '_' with one '.' before a space or '@'.
  size_t n = 0, dots = 0;
  while (n < rest.size() && (std::isalnum(static_cast<unsigned char>(rest[n])) ||
                             rest[n] == '_' || rest[n] == '.')) {
    dots += rest[n] == '.';
    ++n;
  }
  return n > 2 && dots >= 1 && std::isalpha(static_cast<unsigned char>(rest[0])) &&
         n < rest.size() && (rest[n] == ' ' || rest[n] == '@');
}

} // namespace

ContentKind sniffContent(std::string_view head, std::string_view tail) {
  if (head.empty())
    return ContentKind::Empty;
  if (head.substr(0, 4) == std::string_view("PK\x03\x04", 4) ||
      head.substr(0, 4) == std::string_view("PK\x05\x06", 4)) {
    // torch.export.save writes a graph as JSON (models/*.json, or
    // serialized_exported_program.json before torch 2.3; the state dict
    // inside may be a torch.save archive of its own); torch.save and
    // torch.jit.save write "<name>/data.pkl" and no JSON.
    if (tail.find(".json") == std::string_view::npos &&
        tail.find("archive_format") == std::string_view::npos &&
        tail.find("/data.pkl") != std::string_view::npos)
      return ContentKind::TorchSave;
    return ContentKind::Pt2;
  }
  if (hasIdentifier(head, "ET"))
    return ContentKind::Pte;
  if (hasIdentifier(head, "FT"))
    return ContentKind::Ptd;
  if (hasIdentifier(head, "BP"))
    return ContentKind::BundledPte;
  if (head.substr(0, 6) == "\x93NUMPY")
    return ContentKind::Npy;
  if (head.substr(0, 4) == "ML\xEFR")
    return ContentKind::MlirBytecode;
  if (!looksLikeText(head))
    return ContentKind::Binary;
  return looksLikeMlirText(head) ? ContentKind::MlirText : ContentKind::Text;
}

bool sniffFile(const std::string &path, ContentKind *kind, std::string *err) {
  if (std::string why = checkInputFile(path); !why.empty()) {
    *err = why;
    return false;
  }
  int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    *err = std::string("cannot open file: ") + std::strerror(errno);
    return false;
  }
  auto readAt = [fd](off_t offset, size_t n) {
    std::string bytes(n, '\0');
    size_t done = 0;
    while (done < n) {
      ssize_t got = ::pread(fd, bytes.data() + done, n - done, offset + static_cast<off_t>(done));
      if (got < 0 && errno == EINTR)
        continue;
      if (got <= 0)
        break;
      done += static_cast<size_t>(got);
    }
    bytes.resize(done);
    return bytes;
  };
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    *err = std::string("cannot stat file: ") + std::strerror(errno);
    ::close(fd);
    return false;
  }
  const size_t size = static_cast<size_t>(st.st_size);
  std::string head = readAt(0, std::min(size, kSniffHeadBytes));
  std::string tail;
  if (head.compare(0, 2, "PK") == 0) {
    size_t n = std::min(size, kSniffTailBytes);
    tail = readAt(static_cast<off_t>(size - n), n);
  }
  ::close(fd);
  *kind = sniffContent(head, tail);
  return true;
}

const char *describeContent(ContentKind kind) {
  switch (kind) {
  case ContentKind::Empty:
    return "empty";
  case ContentKind::Pt2:
    return "a PyTorch exported program (.pt2, written by torch.export.save)";
  case ContentKind::TorchSave:
    return "a torch.save or TorchScript file (a checkpoint or scripted module, not an exported "
           "program)";
  case ContentKind::Pte:
    return "an ExecuTorch program (.pte)";
  case ContentKind::BundledPte:
    return "an ExecuTorch bundled program (.bpte: a program with test inputs)";
  case ContentKind::Ptd:
    return "an ExecuTorch weights file (.ptd, a program's external weights)";
  case ContentKind::Npy:
    return "a NumPy array (.npy)";
  case ContentKind::MlirBytecode:
    return "ptec IR as MLIR bytecode (.mlirbc)";
  case ContentKind::MlirText:
    return "ptec IR as MLIR text (.mlir)";
  case ContentKind::Text:
    return "text, but not MLIR";
  case ContentKind::Binary:
    return "binary data of no kind ptec knows";
  }
  return "unknown";
}

std::string contentUse(ContentKind kind, const std::string &path) {
  switch (kind) {
  case ContentKind::Pt2:
    return "compile it with aot-compile: aot-compile " + path + " -o model.pte";
  case ContentKind::TorchSave:
    return "export the model with torch.export.export and save it with torch.export.save, "
           "then compile the .pt2 with aot-compile";
  case ContentKind::Pte:
    return "run it with pte-run " + path + ", look inside with pte-inspect " + path;
  case ContentKind::BundledPte:
    return "ptec's tools do not read bundled programs; run the .pte it was made from";
  case ContentKind::Ptd:
    return "give it to pte-run with its program: pte-run model.pte --data " + path +
           "; pte-inspect " + path + " lists it";
  case ContentKind::Npy:
    return "it is tensor data: pte-run takes it with --input or --expected";
  case ContentKind::MlirBytecode:
  case ContentKind::MlirText:
    return "ptec-opt runs passes on it; aot-compile " + path + " -o model.pte finishes the compile";
  case ContentKind::Empty:
  case ContentKind::Text:
  case ContentKind::Binary:
    return "";
  }
  return "";
}

std::string wrongContentMessage(const std::string &path, ContentKind kind,
                                const std::string &wanted, const std::string &subject,
                                const std::string &use) {
  std::string text = (subject.empty() ? path : subject) + " is " + describeContent(kind) +
                     ", not " + wanted;
  if (std::string how = use.empty() ? contentUse(kind, path) : use; !how.empty())
    text += "; " + how;
  return text;
}

} // namespace ptec::io
