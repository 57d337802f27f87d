// Small OpenGL helpers: shader programs from files in shaders/, and uniform setters.
#pragma once

#include <string>

#include <glad/gl.h>
#include <glm/glm.hpp>

namespace cl::viewer {

// Compiles <dir>/<name>.vert.glsl and <dir>/<name>.frag.glsl and links them. Returns 0 and explains
// in *error (file name and the driver's log) on failure.
GLuint load_program(const std::string& dir, const std::string& name, std::string* error);

// Uniform setters by name (looked up every call: a handful per frame, not worth caching).
void set_uniform(GLuint program, const char* name, float v);
void set_uniform(GLuint program, const char* name, int v);
void set_uniform(GLuint program, const char* name, const glm::vec3& v);
void set_uniform(GLuint program, const char* name, const glm::vec4& v);
void set_uniform(GLuint program, const char* name, const glm::mat4& m);

}  // namespace cl::viewer
