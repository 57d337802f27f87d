// The XML side the URDF and MJCF readers share (Debian's libtinyxml2-dev): a model file opened with its syntax
// errors named by line, and attributes read as numbers with errors naming the element, its line and the attribute.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <tinyxml2.h>

#include "core/math.h"
#include "scene/robot_model.h"

namespace cl::model_xml {

// Reads and parses `path`; its root element must be `root` ("robot", "mujoco"). A missing file, a syntax error
// ("FILE:LINE: XML syntax error: ...") or another root throws ModelError.
std::unique_ptr<tinyxml2::XMLDocument> open(const std::string& path, const std::string& root, std::string& text);

ModelSource source_of(const tinyxml2::XMLElement* e);

// The attribute as numbers: exactly `count` of them (count 0: any number, at least one); finite. Nothing when the
// attribute is absent; ModelError naming the element and attribute when it is malformed.
std::optional<std::vector<double>> numbers(const std::string& file, const tinyxml2::XMLElement* e, const char* name,
                                           size_t count = 0);
std::optional<double> number(const std::string& file, const tinyxml2::XMLElement* e, const char* name);
std::optional<Vec3> vec3(const std::string& file, const tinyxml2::XMLElement* e, const char* name);
std::string text(const tinyxml2::XMLElement* e, const char* name);  // "" when absent

// A mesh file a model names, relative to the model's folder (package://PACKAGE/rest: rest, looked for in the
// model's folder and the folders above it): its absolute path, or ModelError "mesh file ... not found" naming the
// element. Only .obj and .off files are read (mesh/mesh.h).
std::string find_mesh(const std::string& model_file, const tinyxml2::XMLElement* e, const std::string& name,
                      const std::string& folder = "");

}  // namespace cl::model_xml
