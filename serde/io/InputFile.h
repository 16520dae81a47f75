// The tools' input files are checked before they are read: a regular file
// (or a link to one), of a size the reader can take. A directory, a FIFO, a
// character device or a socket is refused by name: reading a FIFO blocks, a
// device like /dev/zero never ends, and a directory is not data.
#ifndef PTEC_SERDE_IO_INPUTFILE_H
#define PTEC_SERDE_IO_INPUTFILE_H

#include <cstdint>
#include <string>
#include <vector>

namespace ptec::io {

/// No limit but the file's own size.
constexpr uint64_t kAnySize = UINT64_MAX;

/// Why `path` cannot be read as an input ("" when it can): it is missing or
/// unreadable, not a regular file ("is a directory", "is a FIFO (named
/// pipe)", "is a character device", ...), or larger than `maxBytes`. The
/// message does not repeat the path. `size` gets the file's size.
std::string checkInputFile(const std::string &path, uint64_t maxBytes = kAnySize,
                           uint64_t *size = nullptr);

/// Reads the whole of `path` after the checks of checkInputFile, on the
/// descriptor it opened (a file swapped for a FIFO in between is still
/// refused, and never blocks). False with *err set (without the path).
bool readInputFile(const std::string &path, uint64_t maxBytes, std::vector<uint8_t> *out,
                   std::string *err);

/// "a directory", "a FIFO (named pipe)", "a character device", ... for an
/// st_mode that is not a regular file.
const char *fileKindName(unsigned mode);

} // namespace ptec::io

#endif // PTEC_SERDE_IO_INPUTFILE_H
