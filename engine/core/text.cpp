#include "core/text.h"

#include <cerrno>
#include <cstdio>
#include <cstring>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace cl {

namespace {

// Length of the valid UTF-8 sequence starting at text[i] (2-4), or 0 if the bytes there are not one.
size_t utf8_length(std::string_view text, size_t i) {
  const auto byte = [&](size_t k) { return (unsigned char)text[k]; };
  const unsigned char c = byte(i);
  size_t n = 0;
  unsigned min = 0;
  unsigned code = 0;
  if (c >= 0xC2 && c <= 0xDF) n = 2, min = 0x80, code = c & 0x1F;
  else if (c >= 0xE0 && c <= 0xEF) n = 3, min = 0x800, code = c & 0x0F;
  else if (c >= 0xF0 && c <= 0xF4) n = 4, min = 0x10000, code = c & 0x07;
  else return 0;
  if (i + n > text.size()) return 0;
  for (size_t k = 1; k < n; ++k) {
    if ((byte(i + k) & 0xC0) != 0x80) return 0;
    code = (code << 6) | (byte(i + k) & 0x3F);
  }
  if (code < min || code > 0x10FFFF || (code >= 0xD800 && code <= 0xDFFF)) return 0;
  if (code >= 0x80 && code <= 0x9F) return 0;  // C1 controls (CSI 0x9B starts escape sequences on some terminals)
  return n;
}

}  // namespace

std::string escape_for_message(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    const unsigned char c = (unsigned char)text[i];
    if (c >= 0x20 && c < 0x7F) {
      out += char(c);
      ++i;
      continue;
    }
    if (c >= 0x80) {
      if (const size_t n = utf8_length(text, i)) {
        out.append(text.substr(i, n));
        i += n;
        continue;
      }
    }
    switch (c) {
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      case 0x1B: out += "\\e"; break;
      default: {
        char buf[8];
        std::snprintf(buf, sizeof buf, "\\x%02X", unsigned(c));
        out += buf;
      }
    }
    ++i;
  }
  return out;
}

bool read_text_file(const std::string& path, std::size_t max_bytes, const char* what, std::string& text,
                    std::string& error) {
  const std::string shown = escape_for_message(path);
  if (path.empty()) {
    error = std::string("empty ") + what + " path";
    return false;
  }
  // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer forever.
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    error = shown + ": cannot open " + what + ": " + std::strerror(errno);
    return false;
  }
  struct FdCloser {
    int fd;
    ~FdCloser() { ::close(fd); }
  } closer{fd};
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    error = shown + ": cannot read " + what + ": " + std::strerror(errno);
    return false;
  }
  if (!S_ISREG(st.st_mode)) {
    const char* kind = S_ISDIR(st.st_mode)    ? "a directory"
                       : S_ISFIFO(st.st_mode) ? "a pipe"
                       : S_ISCHR(st.st_mode)  ? "a character device"
                       : S_ISBLK(st.st_mode)  ? "a block device"
                       : S_ISSOCK(st.st_mode) ? "a socket"
                                              : "not a regular file";
    error = shown + ": cannot read " + what + ": it is " + kind + ", not a regular file";
    return false;
  }
  if (std::size_t(st.st_size) > max_bytes) {
    error = shown + ": cannot read " + what + ": it is " + std::to_string(st.st_size) + " bytes, more than the " +
            std::to_string(max_bytes) + "-byte limit";
    return false;
  }
  text.clear();
  text.reserve(std::size_t(st.st_size));
  char buf[1 << 16];
  for (;;) {
    const ssize_t got = ::read(fd, buf, sizeof buf);
    if (got < 0) {
      if (errno == EINTR) continue;
      error = shown + ": cannot read " + what + ": " + std::strerror(errno);
      return false;
    }
    if (got == 0) break;
    // A file that grows while it is read is still held to the limit.
    if (text.size() + std::size_t(got) > max_bytes) {
      error = shown + ": cannot read " + what + ": more than the " + std::to_string(max_bytes) + "-byte limit";
      return false;
    }
    text.append(buf, std::size_t(got));
  }
  return true;
}

std::string csv_field(std::string_view text) {
  if (text.find_first_of(",\"\r\n") == std::string_view::npos) return std::string(text);
  std::string out = "\"";
  for (char c : text) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

}  // namespace cl
