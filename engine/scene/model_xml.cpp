// Opening model files and reading their attributes (model_xml.h).
#include "scene/model_xml.h"

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <filesystem>

#include "core/text.h"

namespace cl::model_xml {

namespace {
constexpr size_t kMaxModelBytes = size_t(64) << 20;
}

std::unique_ptr<tinyxml2::XMLDocument> open(const std::string& path, const std::string& root, std::string& text) {
  std::string error;
  if (!read_text_file(path, kMaxModelBytes, "model file", text, error)) throw ModelError(error);
  auto doc = std::make_unique<tinyxml2::XMLDocument>();
  if (doc->Parse(text.data(), text.size()) != tinyxml2::XML_SUCCESS) {
    const int line = doc->ErrorLineNum();
    std::string what = doc->ErrorStr() ? doc->ErrorStr() : "unreadable";
    // tinyxml2's message repeats the line ("Error=XML_ERROR_MISMATCHED_ELEMENT ErrorID=14 (0xe) Line number=7: ...").
    if (const size_t colon = what.find("Line number="); colon != std::string::npos) {
      const size_t after = what.find(':', colon);
      what = after != std::string::npos ? what.substr(after + 1) : what;
      while (!what.empty() && what.front() == ' ') what.erase(what.begin());
    }
    std::string kind = doc->ErrorName() ? doc->ErrorName() : "";
    throw ModelError(path + (line > 0 ? ":" + std::to_string(line) : "") + ": XML syntax error: " + kind +
                     (what.empty() ? "" : " (" + what + ")"));
  }
  const tinyxml2::XMLElement* top = doc->RootElement();
  if (!top || root != top->Name())
    throw ModelError(path + (top ? ":" + std::to_string(top->GetLineNum()) : "") + ": expected the root element <" +
                     root + ">, got " + (top ? "<" + std::string(top->Name()) + ">" : "no element"));
  return doc;
}

ModelSource source_of(const tinyxml2::XMLElement* e) {
  const char* n = e->Attribute("name");
  return {e->Name(), n ? n : "", e->GetLineNum()};
}

std::optional<std::vector<double>> numbers(const std::string& file, const tinyxml2::XMLElement* e, const char* name,
                                           size_t count) {
  const char* a = e->Attribute(name);
  if (!a) return std::nullopt;
  std::vector<double> out;
  const char* p = a;
  while (true) {
    while (*p && std::isspace(static_cast<unsigned char>(*p))) ++p;
    if (!*p) break;
    char* end = nullptr;
    const double x = std::strtod(p, &end);
    if (end == p || !std::isfinite(x))
      model_fail(file, source_of(e), std::string("attribute ") + name + "=\"" + a + "\": expected " +
                                         (count ? std::to_string(count) : std::string("some")) + " finite numbers");
    out.push_back(x);
    p = end;
  }
  if ((count && out.size() != count) || out.empty())
    model_fail(file, source_of(e), std::string("attribute ") + name + "=\"" + a + "\": expected " +
                                       (count ? std::to_string(count) : std::string("at least one")) + " number" +
                                       (count == 1 ? "" : "s") + ", got " + std::to_string(out.size()));
  return out;
}

std::optional<double> number(const std::string& file, const tinyxml2::XMLElement* e, const char* name) {
  auto v = numbers(file, e, name, 1);
  if (!v) return std::nullopt;
  return (*v)[0];
}

std::optional<Vec3> vec3(const std::string& file, const tinyxml2::XMLElement* e, const char* name) {
  auto v = numbers(file, e, name, 3);
  if (!v) return std::nullopt;
  return Vec3((*v)[0], (*v)[1], (*v)[2]);
}

std::string text(const tinyxml2::XMLElement* e, const char* name) {
  const char* a = e->Attribute(name);
  return a ? a : "";
}

std::string find_mesh(const std::string& model_file, const tinyxml2::XMLElement* e, const std::string& name,
                      const std::string& folder) {
  namespace fs = std::filesystem;
  const fs::path base = fs::absolute(fs::path(model_file)).parent_path();
  std::string rest = name;
  std::vector<fs::path> candidates;
  if (rest.rfind("file://", 0) == 0) rest = rest.substr(7);
  if (rest.rfind("package://", 0) == 0) {
    rest = rest.substr(10);
    const size_t slash = rest.find('/');
    rest = slash == std::string::npos ? rest : rest.substr(slash + 1);
    for (fs::path dir = base; !dir.empty(); dir = dir.parent_path()) {
      candidates.push_back(dir / rest);
      if (dir == dir.parent_path()) break;
    }
  } else if (fs::path(rest).is_absolute()) {
    candidates.push_back(rest);
  } else {
    candidates.push_back(base / folder / rest);
  }
  std::error_code ec;
  for (const fs::path& c : candidates) {
    if (fs::is_regular_file(c, ec)) {
      std::string ext = c.extension().string();
      for (char& ch : ext) ch = char(std::tolower(static_cast<unsigned char>(ch)));
      if (ext != ".obj" && ext != ".off")
        model_fail(model_file, source_of(e), "mesh file \"" + name + "\": ContactLab reads OBJ and OFF meshes, not " +
                                                 (ext.empty() ? std::string("files without extension") : ext));
      return fs::weakly_canonical(c, ec).string();
    }
  }
  model_fail(model_file, source_of(e), "mesh file \"" + name + "\" not found (looked for " +
                                           candidates.front().string() + ")");
}

}  // namespace cl::model_xml
