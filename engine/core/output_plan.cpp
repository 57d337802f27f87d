#include "core/output_plan.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <optional>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/text.h"

namespace cl {

namespace {

// A file's identity: device and inode of the file (symbolic links followed); for a name that does not exist,
// those of its folder and the name in it.
struct Identity {
  dev_t dev = 0;
  ino_t ino = 0;
  std::string name;  // "" for an existing file
  bool device = false;  // a character device (/dev/null): outputs may share it
  bool operator==(const Identity& o) const { return dev == o.dev && ino == o.ino && name == o.name; }
};

std::string parent_of(const std::string& path) {
  const size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

std::string base_of(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::optional<Identity> identity(const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) == 0) return Identity{st.st_dev, st.st_ino, "", S_ISCHR(st.st_mode) != 0};
  // A dangling symbolic link is written as the name it holds.
  std::string target = path;
  struct stat lst;
  if (::lstat(path.c_str(), &lst) == 0 && S_ISLNK(lst.st_mode)) {
    char buf[4096];
    const ssize_t n = ::readlink(path.c_str(), buf, sizeof buf - 1);
    if (n > 0) {
      buf[n] = 0;
      target = buf[0] == '/' ? std::string(buf) : parent_of(path) + "/" + buf;
    }
  }
  std::string base = base_of(target);
  if (base.empty() || base == "." || base == "..") return std::nullopt;
  if (::stat(parent_of(target).c_str(), &st) != 0) return std::nullopt;
  return Identity{st.st_dev, st.st_ino, base, false};
}

std::string quoted(const std::string& path) { return "'" + escape_for_message(path) + "'"; }

}  // namespace

bool same_file(const std::string& a, const std::string& b) {
  const std::optional<Identity> ia = identity(a), ib = identity(b);
  return ia && ib && *ia == *ib;
}

std::string probe_output(const std::string& path, const char* what) {
  const std::string shown = escape_for_message(path);
  std::string target = path;
  struct stat st;
  if (::lstat(path.c_str(), &st) == 0 && S_ISLNK(st.st_mode)) {
    if (char* real = ::realpath(path.c_str(), nullptr)) {
      target = real;
      std::free(real);
    }
  }
  if (::stat(target.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) return shown + ": cannot write " + what + ": it is a directory";
    if (S_ISFIFO(st.st_mode)) {
      const int fd = ::open(target.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC);
      if (fd < 0)
        return shown + ": cannot write " + what + ": " +
               (errno == ENXIO ? std::string("it is a named pipe that nobody reads") : std::strerror(errno));
      ::close(fd);
      return "";
    }
    if (S_ISCHR(st.st_mode)) {
      const int fd = ::open(target.c_str(), O_WRONLY | O_CLOEXEC);
      if (fd < 0) return shown + ": cannot write " + what + ": " + std::strerror(errno);
      ::close(fd);
      return "";
    }
    if (!S_ISREG(st.st_mode)) return shown + ": cannot write " + what + ": it is not a regular file";
    if ((st.st_mode & 0222) == 0 || ::access(target.c_str(), W_OK) != 0)
      return shown + ": cannot write " + what + ": it is read-only";
  } else if (errno != ENOENT) {
    return shown + ": cannot write " + what + ": " + std::strerror(errno);
  }
  const std::string dir = parent_of(target);
  if (::stat(dir.c_str(), &st) != 0)
    return shown + ": cannot write " + what + ": its folder " + quoted(dir) + " does not exist";
  if (!S_ISDIR(st.st_mode)) return shown + ": cannot write " + what + ": " + quoted(dir) + " is not a folder";
  // The folder must take a new file (the temporary one renamed over the target): a read-only file system, an
  // immutable folder or one without write permission fail here, before the run, not after it.
  std::string probe = dir + "/.contactlab-probe.XXXXXX";
  const int fd = ::mkostemp(probe.data(), O_CLOEXEC);
  if (fd < 0) {
    const int e = errno;
    return shown + ": cannot write " + what + ": its folder " + quoted(dir) + " takes no new file: " + std::strerror(e);
  }
  ::close(fd);
  ::unlink(probe.c_str());
  return "";
}

void OutputPlan::read(std::string role, std::string path) { inputs_.push_back({std::move(role), std::move(path)}); }

void OutputPlan::write(std::string role, std::string path) { outputs_.push_back({std::move(role), std::move(path)}); }

bool OutputPlan::check_identities(std::string& error) const {
  for (size_t a = 0; a < outputs_.size(); ++a) {
    const File& out = outputs_[a];
    const std::optional<Identity> ia = identity(out.path);
    if (!ia) continue;  // no folder: probe_output says so
    for (const File& in : inputs_) {
      const std::optional<Identity> ib = identity(in.path);
      if (ib && *ia == *ib) {
        error = out.role + " " + quoted(out.path) + " would overwrite " + in.role + " " + quoted(in.path) +
                (out.path == in.path ? "" : " (the same file by another name or link)") +
                ", which the run reads; choose another file";
        return false;
      }
    }
    if (ia->device) continue;  // /dev/null may take several outputs
    for (size_t b = 0; b < a; ++b) {
      const std::optional<Identity> ib = identity(outputs_[b].path);
      if (ib && *ia == *ib) {
        error = outputs_[b].role + " " + quoted(outputs_[b].path) + " and " + out.role + " " + quoted(out.path) +
                " are the same file: each output needs its own";
        return false;
      }
    }
  }
  return true;
}

bool OutputPlan::check(std::string& error) const {
  if (!check_identities(error)) return false;
  for (const File& out : outputs_) {
    const std::string why = probe_output(out.path, out.role.c_str());
    if (!why.empty()) {
      error = why;
      return false;
    }
  }
  return true;
}

}  // namespace cl
