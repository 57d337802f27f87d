#include "viewer/input_queue.h"

#include <cfloat>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <utility>

#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>

namespace cl::viewer {

std::vector<InputEvent> InputQueue::take_frame() {
  std::vector<InputEvent> out;
  std::array<bool, kKeys> key_changed{};
  std::array<bool, kButtons> button_changed{};
  bool clicked_or_scrolled = false;  // a later move waits for the next frame, so the click is seen where it was
  while (!events_.empty()) {
    const InputEvent& e = events_.front();
    switch (e.type) {
      case InputEvent::Type::Key:
        if (e.code >= 0 && e.code < kKeys && e.action != GLFW_REPEAT) {
          const bool down = e.action == GLFW_PRESS;
          if (keys_[size_t(e.code)] != down) {
            if (key_changed[size_t(e.code)]) return out;
            key_changed[size_t(e.code)] = true;
            keys_[size_t(e.code)] = down;
          }
        }
        break;
      case InputEvent::Type::Button:
        if (e.code >= 0 && e.code < kButtons) {
          const bool down = e.action == GLFW_PRESS;
          if (buttons_[size_t(e.code)] != down) {
            if (button_changed[size_t(e.code)]) return out;
            button_changed[size_t(e.code)] = true;
            buttons_[size_t(e.code)] = down;
            clicked_or_scrolled = true;
          }
        }
        break;
      case InputEvent::Type::Move:
        if (clicked_or_scrolled) return out;
        cursor_known_ = true;
        has_cursor_ = e.x > -FLT_MAX;
        cursor_x_ = e.x;
        cursor_y_ = e.y;
        break;
      case InputEvent::Type::Scroll: clicked_or_scrolled = true; break;
      case InputEvent::Type::Char: break;
    }
    out.push_back(e);
    events_.pop_front();
  }
  return out;
}

namespace {

// The GLFW key of a script's key name; -1 when unknown.
int key_code(const std::string& name) {
  if (name.size() == 1 && name[0] >= 'a' && name[0] <= 'z') return GLFW_KEY_A + (name[0] - 'a');
  if (name.size() == 1 && name[0] >= '0' && name[0] <= '9') return GLFW_KEY_0 + (name[0] - '0');
  static constexpr std::pair<const char*, int> kNamed[] = {
      {"space", GLFW_KEY_SPACE},      {"period", GLFW_KEY_PERIOD},      {"tab", GLFW_KEY_TAB},
      {"escape", GLFW_KEY_ESCAPE},    {"enter", GLFW_KEY_ENTER},        {"backspace", GLFW_KEY_BACKSPACE},
      {"pagedown", GLFW_KEY_PAGE_DOWN}, {"pageup", GLFW_KEY_PAGE_UP}, {"shift", GLFW_KEY_LEFT_SHIFT},
      {"ctrl", GLFW_KEY_LEFT_CONTROL}};
  for (const auto& [n, code] : kNamed)
    if (name == n) return code;
  if (name.size() >= 2 && name[0] == 'f') {
    const int n = std::atoi(name.c_str() + 1);
    if (n >= 1 && n <= 12 && name == "f" + std::to_string(n)) return GLFW_KEY_F1 + n - 1;
  }
  return -1;
}

bool parse_point(const std::string& text, double& x, double& y) {
  const size_t colon = text.find(':');
  if (colon == std::string::npos) return false;
  char* end = nullptr;
  x = std::strtod(text.c_str(), &end);
  if (end != text.c_str() + colon) return false;
  y = std::strtod(text.c_str() + colon + 1, &end);
  return *end == '\0';
}

}  // namespace

bool parse_input_script(const char* text, std::vector<ScriptedInput>& out, std::string* error) {
  std::stringstream items(text != nullptr ? text : "");
  std::string item;
  while (std::getline(items, item, ';')) {
    if (item.empty()) continue;
    const size_t colon = item.find(':'), eq = item.find('=');
    char* end = nullptr;
    const long frame = colon == std::string::npos ? -1 : std::strtol(item.c_str(), &end, 10);
    if (colon == std::string::npos || eq == std::string::npos || eq < colon || end != item.c_str() + colon ||
        frame < 0) {
      *error = "input '" + item + "': expected FRAME:WHAT=VALUE";
      return false;
    }
    const std::string what = item.substr(colon + 1, eq - colon - 1), value = item.substr(eq + 1);
    const int f = int(frame);
    auto add = [&](const InputEvent& e) { out.push_back({f, e}); };
    InputEvent e;
    if (what == "key" || what == "press" || what == "release") {
      e.type = InputEvent::Type::Key;
      e.code = key_code(value);
      if (e.code < 0) {
        *error = "input '" + item + "': unknown key '" + value + "'";
        return false;
      }
      if (what != "release") {
        e.action = GLFW_PRESS;
        add(e);
      }
      if (what != "press") {
        e.action = GLFW_RELEASE;
        add(e);
      }
    } else if (what == "char" && value.size() == 1) {
      e.type = InputEvent::Type::Char;
      e.ch = static_cast<unsigned char>(value[0]);
      add(e);
    } else if (what == "move" || what == "click" || what == "rclick") {
      e.type = InputEvent::Type::Move;
      if (!parse_point(value, e.x, e.y)) {
        *error = "input '" + item + "': expected X:Y";
        return false;
      }
      add(e);
      if (what != "move") {
        InputEvent b;
        b.type = InputEvent::Type::Button;
        b.code = what == "click" ? GLFW_MOUSE_BUTTON_LEFT : GLFW_MOUSE_BUTTON_RIGHT;
        b.action = GLFW_PRESS;
        add(b);
        b.action = GLFW_RELEASE;
        add(b);
      }
    } else if (what == "scroll") {
      e.type = InputEvent::Type::Scroll;
      e.y = std::strtod(value.c_str(), &end);
      if (*end != '\0') {
        *error = "input '" + item + "': expected a number";
        return false;
      }
      add(e);
    } else {
      *error = "input '" + item + "': unknown '" + what + "' (key, press, release, char, move, click, rclick, scroll)";
      return false;
    }
  }
  return true;
}

}  // namespace cl::viewer
