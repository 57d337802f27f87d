// Writing a user's file so that it is never lost: each output goes to a temporary file beside it and is renamed
// over the old one only once it is complete, flushed and synced. A run that fails, throws or is interrupted
// (SIGINT, SIGTERM, SIGHUP with install_output_cleanup) leaves the earlier file as it was, and no temporary file.
#pragma once

#include <string>
#include <string_view>

namespace cl {

class OutputFile {
 public:
  OutputFile() = default;
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;
  ~OutputFile() { discard(); }

  // Opens `path` for writing. A regular file or a new name: a temporary file ".NAME.XXXXXX" in the same folder
  // (through a symbolic link, in the folder of the file it names), taking the old file's permissions. A character
  // device (/dev/null, /dev/full) or a named pipe is written in place (a pipe without a reader is an error, not a
  // hang). A directory, a read-only file (no write permission bit), a missing folder or one that takes no new
  // file are errors. `what` names the file in
  // messages ("state file"); every message is one line starting with the path.
  bool open(const std::string& path, const char* what, std::string& error);
  // Appends bytes (buffered). A failure is remembered and reported again by commit().
  bool write(std::string_view bytes, std::string& error);
  // Flushes, syncs and closes, then renames the temporary file over the target: the output is in place. On any
  // failure the temporary file is removed, the target is left as it was, and false with `error`.
  bool commit(std::string& error) { return finish(error) && publish(error); }
  // commit() in two halves, for outputs that go in place together: finish() flushes, syncs and closes (where a
  // full disk shows), publish() renames. Between them nothing can fail but the rename.
  bool finish(std::string& error);
  bool publish(std::string& error);
  // Removes the temporary file (nothing was written to the target). Nothing to do after commit().
  void discard();

  bool is_open() const { return fd_ >= 0 || finished_; }
  const std::string& path() const { return path_; }

 private:
  bool flush(std::string& error);
  bool fail(const std::string& why, std::string& error);

  int fd_ = -1;
  bool in_place_ = false;  // a device or a pipe: written directly
  std::string path_;       // as given
  std::string target_;     // the file renamed over (symbolic links followed)
  std::string temp_;       // the temporary file, "" when in place
  std::string what_;
  std::string buffer_;
  bool finished_ = false;  // finish() done, publish() not yet
  int slot_ = -1;          // in the registry of temporary files for the signal handlers
};

// Writes `text` to `path` through an OutputFile: the old file stays until the new one is complete. On failure
// `error` is one line starting with the path and naming `what`.
bool write_output_file(const std::string& path, std::string_view text, const char* what, std::string& error);

// Installs handlers for SIGINT, SIGTERM and SIGHUP that remove the temporary files of every open OutputFile,
// then end the process by the signal as before (its default action). Once per process; later calls do nothing.
void install_output_cleanup();

}  // namespace cl
