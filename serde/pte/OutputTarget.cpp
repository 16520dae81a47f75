// Resolving output names and comparing files (see OutputTarget.h).
#include "serde/pte/OutputTarget.h"

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <sys/stat.h>
#include <unistd.h>

namespace ptec::pte {

namespace {

constexpr int kMaxLinks = 40; // as the kernel's ELOOP limit

bool fail(std::string *err, const std::string &why) {
  if (err)
    *err = why;
  return false;
}

/// The descriptor a name stands for: /dev/stdout, /dev/stderr, /dev/fd/N,
/// /proc/self/fd/N, /proc/thread-self/fd/N, /proc/<our pid>/fd/N; -1 otherwise.
int descriptorName(const std::string &path) {
  if (path == "/dev/stdout")
    return 1;
  if (path == "/dev/stderr")
    return 2;
  std::string pid = "/proc/" + std::to_string(::getpid()) + "/fd/";
  for (const std::string prefix :
       {std::string("/dev/fd/"), std::string("/proc/self/fd/"),
        std::string("/proc/thread-self/fd/"), pid}) {
    if (path.compare(0, prefix.size(), prefix) != 0)
      continue;
    std::string digits = path.substr(prefix.size());
    if (digits.empty() || digits.size() > 9 ||
        digits.find_first_not_of("0123456789") != std::string::npos)
      return -1;
    return std::atoi(digits.c_str());
  }
  return -1;
}

std::string folderOf(const std::string &path) {
  size_t slash = path.rfind('/');
  if (slash == std::string::npos)
    return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

std::string nameOf(const std::string &path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

void setIdentity(OutputTarget *t, const struct stat &st) {
  t->exists = true;
  t->characterDevice = S_ISCHR(st.st_mode);
  t->dev = static_cast<uint64_t>(st.st_dev);
  t->ino = static_cast<uint64_t>(st.st_ino);
}

bool resolveDescriptor(int fd, OutputTarget *out, std::string *err) {
  struct stat st;
  if (::fstat(fd, &st) != 0)
    return fail(err, "descriptor " + std::to_string(fd) + " is not open");
  if (S_ISDIR(st.st_mode))
    return fail(err, "descriptor " + std::to_string(fd) + " is a directory");
  out->kind = OutputTarget::Kind::Descriptor;
  out->fd = fd;
  setIdentity(out, st);
  return true;
}

} // namespace

bool resolveOutput(const std::string &path, OutputTarget *out, std::string *err) {
  *out = OutputTarget{};
  if (path.empty())
    return fail(err, "the file name is empty");
  if (path == "-")
    return resolveDescriptor(1, out, err);
  std::string at = path;
  for (int hop = 0; hop <= kMaxLinks; ++hop) {
    if (int fd = descriptorName(at); fd >= 0)
      return resolveDescriptor(fd, out, err);
    struct stat st;
    if (::lstat(at.c_str(), &st) != 0) {
      if (errno != ENOENT)
        return fail(err, std::strerror(errno));
      // A new file: its folder must exist (and is its identity).
      struct stat dir;
      if (::stat(folderOf(at).c_str(), &dir) != 0)
        return fail(err, std::strerror(errno));
      if (!S_ISDIR(dir.st_mode))
        return fail(err, std::strerror(ENOTDIR));
      out->kind = OutputTarget::Kind::Replace;
      out->file = at;
      out->dev = static_cast<uint64_t>(dir.st_dev);
      out->ino = static_cast<uint64_t>(dir.st_ino);
      out->newName = nameOf(at);
      return true;
    }
    if (S_ISLNK(st.st_mode)) {
      std::string target(PATH_MAX, '\0');
      ssize_t n = ::readlink(at.c_str(), target.data(), target.size());
      if (n < 0)
        return fail(err, std::string("cannot read the link: ") + std::strerror(errno));
      target.resize(static_cast<size_t>(n));
      at = target.empty() || target[0] == '/' ? target : folderOf(at) + "/" + target;
      continue;
    }
    if (S_ISDIR(st.st_mode))
      return fail(err, "it is a directory");
    if (S_ISSOCK(st.st_mode))
      return fail(err, "it is a socket");
    out->kind = S_ISREG(st.st_mode) ? OutputTarget::Kind::Replace : OutputTarget::Kind::InPlace;
    out->file = at;
    setIdentity(out, st);
    return true;
  }
  return fail(err, std::strerror(ELOOP));
}

bool sameFile(const OutputTarget &a, const OutputTarget &b) {
  return a.exists == b.exists && a.dev == b.dev && a.ino == b.ino && a.newName == b.newName;
}

bool writesFile(const OutputTarget &t, const std::string &path) {
  struct stat st;
  if (!t.exists || path == "-" || ::stat(path.c_str(), &st) != 0)
    return false;
  return t.dev == static_cast<uint64_t>(st.st_dev) && t.ino == static_cast<uint64_t>(st.st_ino);
}

std::string checkDistinctFiles(const std::vector<NamedFile> &outputs,
                               const std::vector<NamedFile> &inputs) {
  auto said = [](const NamedFile &f) { return f.flag + " " + f.path; };
  std::vector<OutputTarget> targets(outputs.size());
  std::vector<bool> resolved(outputs.size());
  for (size_t i = 0; i < outputs.size(); ++i) {
    resolved[i] = resolveOutput(outputs[i].path, &targets[i], nullptr);
    if (!resolved[i])
      continue; // the writer says why it cannot be written
    for (const NamedFile &in : inputs)
      if (writesFile(targets[i], in.path))
        return said(outputs[i]) + " names the same file as " + said(in) +
               ", which it would overwrite";
    for (size_t j = 0; j < i; ++j) {
      if (!resolved[j])
        continue;
      bool bothDash = outputs[i].path == "-" && outputs[j].path == "-";
      if (!bothDash && (!sameFile(targets[i], targets[j]) || targets[i].characterDevice))
        continue;
      return said(outputs[j]) + " and " + said(outputs[i]) +
             " name the same file; each output needs its own";
    }
  }
  return "";
}

} // namespace ptec::pte
