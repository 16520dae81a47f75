// Where a file a tool writes ends up, decided once for every output of every
// tool (FileWrite.cpp writes through it; FileChunks.h has the writers):
//
// - `-` is standard output, and so are /dev/stdout, /dev/fd/N and
//   /proc/self/fd/N (the descriptor itself is written, as a shell redirection
//   set it up: appending, a pipe, a terminal);
// - a name is looked at with lstat, never stat: a symbolic link is followed
//   to its target, hop by hop, and the link itself is never replaced;
// - an existing FIFO, character or block device (directly or at the end of
//   links) is opened and written in place, never replaced;
// - a regular file, or a name that does not exist yet, is written to a
//   temporary in its folder and renamed over it (atomic: readers see the old
//   file or the new one, a failure leaves the old one as it was);
// - a directory or a socket is refused.
//
// Outputs are compared by what they resolve to (device and inode of the
// file, or of its folder and its name for a new one), never by spelling:
// `checkDistinctFiles` refuses an output that names an input or another
// output of the same command.
#ifndef PTEC_SERDE_PTE_OUTPUTTARGET_H
#define PTEC_SERDE_PTE_OUTPUTTARGET_H

#include <cstdint>
#include <string>
#include <vector>

namespace ptec::pte {

struct OutputTarget {
  enum class Kind {
    Descriptor, ///< an open descriptor (`fd`): `-`, /dev/stdout, /dev/fd/N
    InPlace,    ///< an existing FIFO or device at `file`: opened and written
    Replace,    ///< a regular file or a new name at `file`: temporary, then rename
  };
  Kind kind = Kind::Replace;
  std::string file; ///< the name written: links followed (Replace, InPlace)
  int fd = -1;      ///< Descriptor
  /// Identity: the file's device and inode when it exists (a descriptor's
  /// file too); for a new name, its folder's device and inode and the name.
  bool exists = false;
  bool characterDevice = false;
  uint64_t dev = 0, ino = 0;
  std::string newName;
};

/// Resolves `path` as an output. False with *err (without the path) when it
/// cannot be one: a directory, a socket, a loop of links, a folder that does
/// not exist, a descriptor that is not open.
bool resolveOutput(const std::string &path, OutputTarget *out, std::string *err);

/// Whether writing `a` and writing `b` would write the same file.
bool sameFile(const OutputTarget &a, const OutputTarget &b);

/// Whether writing `t` would write the existing file `path` (links
/// followed; false when `path` does not exist).
bool writesFile(const OutputTarget &t, const std::string &path);

/// One file of a command: the flag that names it ("-o", "--report-file", an
/// input's "input") and the name as given.
struct NamedFile {
  std::string flag;
  std::string path;
};

/// Why these outputs cannot be written together ("" when they can): one of
/// them resolves to an input (`inputs` that do not exist are skipped), two
/// of them to one file (a character device such as /dev/null may take
/// several; `-` twice may not), or one cannot be an output at all (then the
/// message says why, as resolveOutput). The message names both flags and
/// both names.
std::string checkDistinctFiles(const std::vector<NamedFile> &outputs,
                               const std::vector<NamedFile> &inputs);

} // namespace ptec::pte

#endif // PTEC_SERDE_PTE_OUTPUTTARGET_H
