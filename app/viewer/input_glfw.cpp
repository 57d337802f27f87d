#include "viewer/input_glfw.h"

#include <cfloat>

#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>
#include <backends/imgui_impl_glfw.h>
#include <imgui.h>

namespace cl::viewer {

namespace {

InputQueue* queue_of(GLFWwindow* window) { return static_cast<InputQueue*>(glfwGetWindowUserPointer(window)); }

void on_key(GLFWwindow* window, int key, int scancode, int action, int mods) {
  queue_of(window)->push({.type = InputEvent::Type::Key, .code = key, .scancode = scancode, .action = action, .mods = mods});
}

void on_char(GLFWwindow* window, unsigned int c) { queue_of(window)->push({.type = InputEvent::Type::Char, .ch = c}); }

void on_button(GLFWwindow* window, int button, int action, int mods) {
  queue_of(window)->push({.type = InputEvent::Type::Button, .code = button, .action = action, .mods = mods});
}

void on_cursor(GLFWwindow* window, double x, double y) {
  queue_of(window)->push({.type = InputEvent::Type::Move, .x = x, .y = y});
}

void on_scroll(GLFWwindow* window, double dx, double dy) {
  queue_of(window)->push({.type = InputEvent::Type::Scroll, .x = dx, .y = dy});
}

void on_enter(GLFWwindow* window, int entered) {
  ImGui_ImplGlfw_CursorEnterCallback(window, entered);
  if (entered == 0) on_cursor(window, -FLT_MAX, -FLT_MAX);  // off the window, in its order among the events
}

}  // namespace

void install_input_callbacks(GLFWwindow* window, InputQueue* queue) {
  glfwSetWindowUserPointer(window, queue);
  glfwSetKeyCallback(window, on_key);
  glfwSetCharCallback(window, on_char);
  glfwSetMouseButtonCallback(window, on_button);
  glfwSetCursorPosCallback(window, on_cursor);
  glfwSetScrollCallback(window, on_scroll);
  glfwSetCursorEnterCallback(window, on_enter);
  glfwSetWindowFocusCallback(window, ImGui_ImplGlfw_WindowFocusCallback);
}

void inject_input(GLFWwindow* window, const InputEvent& e) {
  switch (e.type) {
    case InputEvent::Type::Key: on_key(window, e.code, e.scancode, e.action, e.mods); break;
    case InputEvent::Type::Char: on_char(window, e.ch); break;
    case InputEvent::Type::Button: on_button(window, e.code, e.action, e.mods); break;
    case InputEvent::Type::Move: on_cursor(window, e.x, e.y); break;
    case InputEvent::Type::Scroll: on_scroll(window, e.x, e.y); break;
  }
}

void feed_imgui(GLFWwindow* window, InputQueue& queue) {
  for (const InputEvent& e : queue.take_frame()) {
    switch (e.type) {
      // Keys, characters and the wheel through the backend's callbacks (io.KeysDown and the modifiers,
      // io.AddInputCharacter, io.MouseWheel).
      case InputEvent::Type::Key: ImGui_ImplGlfw_KeyCallback(window, e.code, e.scancode, e.action, e.mods); break;
      case InputEvent::Type::Char: ImGui_ImplGlfw_CharCallback(window, e.ch); break;
      case InputEvent::Type::Scroll: ImGui_ImplGlfw_ScrollCallback(window, e.x, e.y); break;
      case InputEvent::Type::Button:
      case InputEvent::Type::Move: break;  // as the queue's state below
    }
  }
  // The backend read the buttons and the cursor from GLFW as they are now; ImGui gets them as of this frame's events.
  ImGuiIO& io = ImGui::GetIO();
  for (int b = 0; b < InputQueue::kButtons; ++b) io.MouseDown[b] = queue.button_down(b);
  if (queue.cursor_known())
    io.MousePos = queue.has_cursor() ? ImVec2(float(queue.cursor_x()), float(queue.cursor_y())) : ImVec2(-FLT_MAX, -FLT_MAX);
}

}  // namespace cl::viewer
