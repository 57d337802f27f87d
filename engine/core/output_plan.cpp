#include "core/output_plan.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <optional>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/output_file.h"
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

std::optional<Identity> identity(const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) == 0) return Identity{st.st_dev, st.st_ino, "", S_ISCHR(st.st_mode) != 0};
  // A dangling symbolic link is written as the name it holds.
  const std::string target = written_path(path);
  std::string base = path_name(target);
  if (base.empty() || base == "." || base == "..") return std::nullopt;
  if (::stat(path_folder(target).c_str(), &st) != 0) return std::nullopt;
  return Identity{st.st_dev, st.st_ino, base, false};
}

std::string quoted(const std::string& path) { return "'" + escape_for_message(path) + "'"; }

}  // namespace

std::string path_folder(const std::string& path) {
  const size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

std::string path_name(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::string written_path(const std::string& path) {
  std::string at = path;
  for (int hops = 0; hops < 40; ++hops) {  // the kernel's own bound on a chain of links (ELOOP)
    struct stat lst;
    if (::lstat(at.c_str(), &lst) != 0 || !S_ISLNK(lst.st_mode)) return at;
    char buf[4096];
    const ssize_t n = ::readlink(at.c_str(), buf, sizeof buf - 1);
    if (n <= 0) return at;
    buf[n] = 0;
    at = buf[0] == '/' ? std::string(buf) : path_folder(at) + "/" + buf;
  }
  struct stat lst;
  if (::lstat(at.c_str(), &lst) != 0 || !S_ISLNK(lst.st_mode)) return at;  // a chain of exactly 40
  return path;  // a loop: the open fails on the path itself (ELOOP)
}

bool same_file(const std::string& a, const std::string& b) {
  const std::optional<Identity> ia = identity(a), ib = identity(b);
  return ia && ib && *ia == *ib;
}

std::string probe_output(const std::string& path, const char* what) {
  // A named pipe is not opened here: a reader would take the probe's close for the end of the stream. The run's
  // own open, still before the first step, says when nobody reads it.
  struct stat st;
  if (::stat(path.c_str(), &st) == 0 && S_ISFIFO(st.st_mode)) return "";
  // Everything else is opened as the run will open it (a temporary file made in the folder) and dropped.
  OutputFile probe;
  std::string error;
  if (!probe.open(path, what, error)) return error;
  probe.discard();
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
