#include "viewer/gl_util.h"

#include <algorithm>
#include <fstream>
#include <sstream>
#include <vector>

#include <glm/gtc/type_ptr.hpp>

namespace cl::viewer {

namespace {

bool read_text(const std::string& path, std::string* text) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::ostringstream ss;
  ss << in.rdbuf();
  *text = ss.str();
  return true;
}

std::string info_log(GLuint object, bool is_program) {
  GLint length = 0;
  if (is_program) glGetProgramiv(object, GL_INFO_LOG_LENGTH, &length);
  else glGetShaderiv(object, GL_INFO_LOG_LENGTH, &length);
  std::vector<char> log(static_cast<size_t>(std::max(length, 1)), '\0');
  if (is_program) glGetProgramInfoLog(object, length, nullptr, log.data());
  else glGetShaderInfoLog(object, length, nullptr, log.data());
  return log.data();
}

GLuint compile(GLenum stage, const std::string& path, std::string* error) {
  std::string source;
  if (!read_text(path, &source)) {
    *error = path + ": cannot read shader (set CONTACTLAB_HOME to the directory holding shaders/)";
    return 0;
  }
  const GLuint shader = glCreateShader(stage);
  const char* text = source.c_str();
  glShaderSource(shader, 1, &text, nullptr);
  glCompileShader(shader);
  GLint ok = GL_FALSE;
  glGetShaderiv(shader, GL_COMPILE_STATUS, &ok);
  if (ok != GL_TRUE) {
    *error = path + ": " + info_log(shader, false);
    glDeleteShader(shader);
    return 0;
  }
  return shader;
}

}  // namespace

GLuint load_program(const std::string& dir, const std::string& name, std::string* error) {
  const GLuint vs = compile(GL_VERTEX_SHADER, dir + "/" + name + ".vert.glsl", error);
  if (vs == 0) return 0;
  const GLuint fs = compile(GL_FRAGMENT_SHADER, dir + "/" + name + ".frag.glsl", error);
  if (fs == 0) {
    glDeleteShader(vs);
    return 0;
  }
  const GLuint program = glCreateProgram();
  glAttachShader(program, vs);
  glAttachShader(program, fs);
  glLinkProgram(program);
  glDeleteShader(vs);  // the program keeps them alive while attached
  glDeleteShader(fs);
  GLint ok = GL_FALSE;
  glGetProgramiv(program, GL_LINK_STATUS, &ok);
  if (ok != GL_TRUE) {
    *error = dir + "/" + name + ": link failed: " + info_log(program, true);
    glDeleteProgram(program);
    return 0;
  }
  return program;
}

void set_uniform(GLuint program, const char* name, float v) { glProgramUniform1f(program, glGetUniformLocation(program, name), v); }
void set_uniform(GLuint program, const char* name, int v) { glProgramUniform1i(program, glGetUniformLocation(program, name), v); }
void set_uniform(GLuint program, const char* name, const glm::vec3& v) {
  glProgramUniform3fv(program, glGetUniformLocation(program, name), 1, glm::value_ptr(v));
}
void set_uniform(GLuint program, const char* name, const glm::vec4& v) {
  glProgramUniform4fv(program, glGetUniformLocation(program, name), 1, glm::value_ptr(v));
}
void set_uniform(GLuint program, const char* name, const glm::mat4& m) {
  glProgramUniformMatrix4fv(program, glGetUniformLocation(program, name), 1, GL_FALSE, glm::value_ptr(m));
}

}  // namespace cl::viewer
