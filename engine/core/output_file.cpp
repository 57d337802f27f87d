#include "core/output_file.h"

#include <array>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstring>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/output_plan.h"
#include "core/text.h"

namespace cl {

namespace {

// The temporary files being written, for the signal handlers: fixed slots (no allocation in a handler), each
// taken by an OutputFile from open() to commit() or discard(). A slot's state: 0 free, 1 being filled, 2 in use.
struct TempSlot {
  std::atomic<int> state{0};
  char path[4096];
};
std::array<TempSlot, 64> temp_slots;

int register_temp(const std::string& path) {
  if (path.size() >= sizeof(TempSlot::path)) return -1;
  for (size_t i = 0; i < temp_slots.size(); ++i) {
    int free = 0;
    if (!temp_slots[i].state.compare_exchange_strong(free, 1)) continue;
    std::memcpy(temp_slots[i].path, path.c_str(), path.size() + 1);
    temp_slots[i].state.store(2);
    return int(i);
  }
  return -1;  // more than 64 at once: that one is not removed by a signal (it is by discard())
}

void unregister_temp(int slot) {
  if (slot >= 0) temp_slots[size_t(slot)].state.store(0);
}

extern "C" void remove_temps_and_die(int sig) {
  for (TempSlot& s : temp_slots)
    if (s.state.load() == 2) ::unlink(s.path);
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

}  // namespace

bool OutputFile::fail(const std::string& why, std::string& error) {
  error = escape_for_message(path_) + ": cannot write " + what_ + ": " + why;
  discard();
  return false;
}

bool OutputFile::open(const std::string& path, const char* what, std::string& error) {
  discard();
  finished_ = false;
  path_ = path;
  what_ = what;
  buffer_.clear();
  in_place_ = false;
  if (path.empty()) return fail("no file name", error);
  // Through a symbolic link the file it names is replaced (or made, for a link to a name not there yet), and the
  // link stays.
  target_ = written_path(path);
  struct stat st;
  if (::stat(target_.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) return fail("it is a directory", error);
    if (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode)) {
      // A device or a pipe is the user's stream: written directly. A pipe nobody reads would block the open.
      fd_ = ::open(target_.c_str(), O_WRONLY | O_CLOEXEC | O_NONBLOCK);
      if (fd_ < 0)
        return fail(errno == ENXIO ? std::string("it is a named pipe that nobody reads") : std::strerror(errno), error);
      ::fcntl(fd_, F_SETFL, ::fcntl(fd_, F_GETFL) & ~O_NONBLOCK);
      in_place_ = true;
      return true;
    }
    if (!S_ISREG(st.st_mode)) return fail("it is not a regular file", error);
    // Replacing it needs only the folder's permission; a file its owner made read-only stays as it is.
    if ((st.st_mode & 0222) == 0 || ::access(target_.c_str(), W_OK) != 0) return fail("it is read-only", error);
  } else if (errno != ENOENT) {
    return fail(std::strerror(errno), error);
  }
  const std::string dir = path_folder(target_);
  struct stat dst;
  if (::stat(dir.c_str(), &dst) != 0)
    return fail("its folder '" + escape_for_message(dir) + "' does not exist", error);
  if (!S_ISDIR(dst.st_mode)) return fail("'" + escape_for_message(dir) + "' is not a folder", error);
  std::string temp = dir + "/." + path_name(target_) + ".XXXXXX";
  int fd = ::mkostemp(temp.data(), O_CLOEXEC);
  if (fd < 0) {
    const int e = errno;
    return fail("its folder '" + escape_for_message(dir) + "' takes no new file: " + std::strerror(e), error);
  }
  // The new file takes the old one's permissions (mkostemp makes it 0600); a new name gets 0666 less the umask.
  mode_t mode;
  if (::stat(target_.c_str(), &st) == 0) {
    mode = st.st_mode & 07777;
  } else {
    const mode_t mask = ::umask(0);
    ::umask(mask);
    mode = 0666 & ~mask;
  }
  ::fchmod(fd, mode);
  fd_ = fd;
  temp_ = temp;
  slot_ = register_temp(temp_);
  return true;
}

bool OutputFile::flush(std::string& error) {
  size_t done = 0;
  while (done < buffer_.size()) {
    const ssize_t n = ::write(fd_, buffer_.data() + done, buffer_.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      const int e = errno;
      return fail(std::strerror(e), error);
    }
    done += size_t(n);
  }
  buffer_.clear();
  return true;
}

bool OutputFile::write(std::string_view bytes, std::string& error) {
  if (fd_ < 0) {
    error = escape_for_message(path_) + ": cannot write " + what_ + ": it is not open";
    return false;
  }
  buffer_.append(bytes);
  if (buffer_.size() >= (size_t(1) << 16)) return flush(error);
  return true;
}

bool OutputFile::finish(std::string& error) {
  if (fd_ < 0) {
    error = escape_for_message(path_) + ": cannot write " + what_ + ": it is not open";
    return false;
  }
  if (!flush(error)) return false;
  // A full disk may only show at the sync or the close. Devices and pipes cannot be synced (EINVAL): no error.
  if (::fsync(fd_) != 0 && errno != EINVAL && errno != EROFS) {
    const int e = errno;
    return fail(std::strerror(e), error);
  }
  const int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0) {
    const int e = errno;
    return fail(std::strerror(e), error);
  }
  finished_ = true;
  return true;
}

bool OutputFile::publish(std::string& error) {
  if (!finished_) {
    error = escape_for_message(path_) + ": cannot write " + what_ + ": it is not finished";
    return false;
  }
  finished_ = false;
  if (!in_place_ && ::rename(temp_.c_str(), target_.c_str()) != 0) {
    const int e = errno;
    return fail(std::string("cannot put it in place: ") + std::strerror(e), error);
  }
  unregister_temp(slot_);
  slot_ = -1;
  temp_.clear();
  return true;
}

void OutputFile::discard() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  finished_ = false;
  if (!temp_.empty()) ::unlink(temp_.c_str());
  unregister_temp(slot_);
  slot_ = -1;
  temp_.clear();
  buffer_.clear();
}

bool write_output_file(const std::string& path, std::string_view text, const char* what, std::string& error) {
  OutputFile out;
  return out.open(path, what, error) && out.write(text, error) && out.commit(error);
}

void install_output_cleanup() {
  static std::atomic<bool> installed{false};
  if (installed.exchange(true)) return;
  struct sigaction sa {};
  sa.sa_handler = remove_temps_and_die;
  sigemptyset(&sa.sa_mask);
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) ::sigaction(sig, &sa, nullptr);
}

}  // namespace cl
