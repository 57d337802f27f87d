// The files a run reads and writes, checked together before its first step: no output may be a file the run
// reads (the scene, its meshes, the distance grids it reads back) or another output, by identity (device and
// inode, so hard links, symbolic links, bind mounts and other spellings of one file are caught), and every
// output must be writable where it is to go (its folder exists and takes a new file; it is no directory; a
// pipe has a reader). Used by the command line and the viewer alike.
#pragma once

#include <string>
#include <vector>

namespace cl {

class OutputPlan {
 public:
  // A file the run reads: `role` names it in messages ("the scene", "mesh file (/bodies/2/shape/file)").
  void read(std::string role, std::string path);
  // A file the run writes: `role` is its option or what it is ("--metrics", "the lanes sidecar of --metrics").
  void write(std::string role, std::string path);
  // False with a one-line message naming the output (and the file it clashes with) at the first problem.
  bool check(std::string& error) const;
  // Only the identity checks (no probing of the folders): for a plan whose outputs were probed already.
  bool check_identities(std::string& error) const;

  struct File {
    std::string role, path;
  };
  const std::vector<File>& inputs() const { return inputs_; }
  const std::vector<File>& outputs() const { return outputs_; }

 private:
  std::vector<File> inputs_, outputs_;
};

// The folder of a path ("." for a bare name) and its last component: where OutputFile puts a file's temporary
// twin, and how a new name's identity is told.
std::string path_folder(const std::string& path);
std::string path_name(const std::string& path);

// The file a write to `path` replaces: through symbolic links, followed as far as they lead, also to a name that
// does not exist yet (a dangling link is written as the name it holds, and stays a link); else `path` itself.
std::string written_path(const std::string& path);

// Whether the two paths name one file (device and inode; where a file does not exist yet, its folder's
// identity and its name).
bool same_file(const std::string& a, const std::string& b);

// Whether `path` can be written as OutputFile writes it, without writing it: "" when it can, else why not
// (one line starting with the path and naming `what`). Probes the folder by creating and removing a file; a
// named pipe is left for the run's own open.
std::string probe_output(const std::string& path, const char* what);

}  // namespace cl
