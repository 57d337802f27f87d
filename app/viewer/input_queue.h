// The window's input events in the order they happened, handed to ImGui a frame's worth at a time. Debian's Dear
// ImGui 1.86 has no input queue of its own: its GLFW backend writes each key's state as the event arrives, so a press
// and its release that both arrive between two frames (a short tap at a low frame rate) leave the key up and the
// press is never seen. The viewer's GLFW callbacks record every event here instead, and each frame takes the
// longest run of them in which no key or mouse button changes twice and the mouse does not move after a click, so
// that every press and every release is seen in a frame of its own, in order, where it happened. No GL, no ImGui.
#pragma once

#include <array>
#include <cstddef>
#include <deque>
#include <string>
#include <vector>

namespace cl::viewer {

struct InputEvent {
  enum class Type { Key, Char, Button, Move, Scroll };
  Type type = Type::Key;
  int code = 0;         // Key: the GLFW key code; Button: the mouse button (0 left, 1 right, 2 middle)
  int scancode = 0;     // Key
  int action = 0;       // Key, Button: 1 press, 0 release, 2 repeat (GLFW_PRESS, GLFW_RELEASE, GLFW_REPEAT)
  int mods = 0;         // Key, Button: GLFW_MOD_* bits
  unsigned int ch = 0;  // Char: the Unicode code point
  double x = 0, y = 0;  // Move: the cursor in window coordinates (off the window: both -FLT_MAX); Scroll: offsets
};

class InputQueue {
 public:
  static constexpr int kKeys = 512;    // ImGui 1.86's io.KeysDown
  static constexpr int kButtons = 5;   // ImGui 1.86's io.MouseDown

  void push(const InputEvent& e) { events_.push_back(e); }
  bool empty() const { return events_.empty(); }
  size_t pending() const { return events_.size(); }

  // Removes and returns this frame's events, oldest first: all of them up to (not including) the first key or button
  // event that would change a key or button already changed in this frame, or a cursor move after a button change
  // or scroll of this frame. Key repeats and characters never end a frame. At least one event when any are pending.
  std::vector<InputEvent> take_frame();

  // The state after every event taken so far: what ImGui is told is down, and where the cursor is.
  bool key_down(int key) const { return key >= 0 && key < kKeys && keys_[size_t(key)]; }
  bool button_down(int button) const { return button >= 0 && button < kButtons && buttons_[size_t(button)]; }
  bool cursor_known() const { return cursor_known_; }  // a move has been taken
  bool has_cursor() const { return has_cursor_; }        // and the last one was inside the window
  double cursor_x() const { return cursor_x_; }
  double cursor_y() const { return cursor_y_; }

 private:
  std::deque<InputEvent> events_;
  std::array<bool, kKeys> keys_{};
  std::array<bool, kButtons> buttons_{};
  bool cursor_known_ = false, has_cursor_ = false;
  double cursor_x_ = 0, cursor_y_ = 0;
};

// A test script of synthetic input (CONTACTLAB_TEST_INPUT): events to put into the queue after a given frame's
// poll, as if they had arrived while that frame was being drawn. Items separated by ';', each FRAME:WHAT with
// WHAT one of: key=NAME (press and release), press=NAME, release=NAME, char=C, move=X:Y, click=X:Y (move there,
// press and release the left button), rclick=X:Y, scroll=DY. NAME: a letter or digit, space, period, tab, escape,
// enter, backspace, f1..f12, pagedown, pageup. False with *error naming the bad item.
struct ScriptedInput {
  int frame = 0;
  InputEvent event;
};
bool parse_input_script(const char* text, std::vector<ScriptedInput>& out, std::string* error);

}  // namespace cl::viewer
