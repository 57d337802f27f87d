// The input queue (app/viewer/input_queue.cpp): every press and release in a frame of its own, in order, and a
// click seen where it happened, however many events arrive between two frames.
#include "viewer/input_queue.h"

#include <cfloat>

#include <gtest/gtest.h>

#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>

namespace cl::viewer {
namespace {

InputEvent key(int code, int action) { return {.type = InputEvent::Type::Key, .code = code, .action = action}; }
InputEvent button(int b, int action) { return {.type = InputEvent::Type::Button, .code = b, .action = action}; }
InputEvent move(double x, double y) { return {.type = InputEvent::Type::Move, .x = x, .y = y}; }

TEST(InputQueue, SixTapsBetweenTwoFramesAreSixPressesInTwelveFrames) {
  InputQueue q;
  for (int i = 0; i < 6; ++i) {
    q.push(key(GLFW_KEY_SPACE, GLFW_PRESS));
    q.push(key(GLFW_KEY_SPACE, GLFW_RELEASE));
  }
  int presses = 0, frames = 0;
  bool was_down = false;
  while (!q.empty()) {
    const std::vector<InputEvent> frame = q.take_frame();
    ASSERT_FALSE(frame.empty());
    ++frames;
    const bool down = q.key_down(GLFW_KEY_SPACE);
    EXPECT_NE(down, was_down) << "frame " << frames << ": each frame changes the key once";
    if (down) ++presses;
    was_down = down;
  }
  EXPECT_EQ(presses, 6);
  EXPECT_EQ(frames, 12);
  EXPECT_FALSE(q.key_down(GLFW_KEY_SPACE));
}

TEST(InputQueue, DifferentKeysShareAFrameInOrder) {
  InputQueue q;
  q.push(key(GLFW_KEY_LEFT_CONTROL, GLFW_PRESS));
  q.push(key(GLFW_KEY_S, GLFW_PRESS));
  q.push(key(GLFW_KEY_S, GLFW_RELEASE));
  q.push(key(GLFW_KEY_LEFT_CONTROL, GLFW_RELEASE));
  const std::vector<InputEvent> first = q.take_frame();
  ASSERT_EQ(first.size(), 2u);  // ctrl and s down together: the release of s changes s a second time
  EXPECT_TRUE(q.key_down(GLFW_KEY_LEFT_CONTROL));
  EXPECT_TRUE(q.key_down(GLFW_KEY_S));
  EXPECT_EQ(q.take_frame().size(), 2u);
  EXPECT_FALSE(q.key_down(GLFW_KEY_S));
  EXPECT_FALSE(q.key_down(GLFW_KEY_LEFT_CONTROL));
  EXPECT_TRUE(q.empty());
}

TEST(InputQueue, RepeatsAndCharactersNeverHoldBackAFrame) {
  InputQueue q;
  q.push(key(GLFW_KEY_A, GLFW_PRESS));
  InputEvent c;
  c.type = InputEvent::Type::Char;
  c.ch = 'a';
  q.push(c);
  q.push(key(GLFW_KEY_A, GLFW_REPEAT));
  q.push(c);
  EXPECT_EQ(q.take_frame().size(), 4u);
  EXPECT_TRUE(q.key_down(GLFW_KEY_A));
}

TEST(InputQueue, AQuickClickIsDownForAFrameWhereItHappened) {
  InputQueue q;
  q.push(move(10, 20));
  q.push(move(300, 200));
  q.push(button(GLFW_MOUSE_BUTTON_LEFT, GLFW_PRESS));
  q.push(button(GLFW_MOUSE_BUTTON_LEFT, GLFW_RELEASE));
  q.push(move(900, 600));  // the cursor went on after the click
  EXPECT_EQ(q.take_frame().size(), 3u);
  EXPECT_TRUE(q.button_down(GLFW_MOUSE_BUTTON_LEFT));
  EXPECT_DOUBLE_EQ(q.cursor_x(), 300.0);
  EXPECT_DOUBLE_EQ(q.cursor_y(), 200.0);
  EXPECT_EQ(q.take_frame().size(), 1u);  // the release, still at the click: the move waits
  EXPECT_FALSE(q.button_down(GLFW_MOUSE_BUTTON_LEFT));
  EXPECT_DOUBLE_EQ(q.cursor_x(), 300.0);
  EXPECT_EQ(q.take_frame().size(), 1u);
  EXPECT_DOUBLE_EQ(q.cursor_x(), 900.0);
  EXPECT_TRUE(q.has_cursor());
}

TEST(InputQueue, ADragMovesWhileTheButtonIsHeld) {
  InputQueue q;
  q.push(move(100, 100));
  q.push(button(GLFW_MOUSE_BUTTON_RIGHT, GLFW_PRESS));
  for (int i = 1; i <= 5; ++i) q.push(move(100 + 10 * i, 100));
  q.push(button(GLFW_MOUSE_BUTTON_RIGHT, GLFW_RELEASE));
  EXPECT_EQ(q.take_frame().size(), 2u);
  EXPECT_TRUE(q.button_down(GLFW_MOUSE_BUTTON_RIGHT));
  EXPECT_EQ(q.take_frame().size(), 6u);  // the moves, then the release at their end
  EXPECT_FALSE(q.button_down(GLFW_MOUSE_BUTTON_RIGHT));
  EXPECT_DOUBLE_EQ(q.cursor_x(), 150.0);
}

TEST(InputQueue, LeavingTheWindowDropsTheCursor) {
  InputQueue q;
  EXPECT_FALSE(q.cursor_known());
  q.push(move(5, 5));
  q.push(move(-FLT_MAX, -FLT_MAX));
  q.take_frame();
  EXPECT_TRUE(q.cursor_known());
  EXPECT_FALSE(q.has_cursor());
}

TEST(InputScript, ParsesTapsClicksAndFrames) {
  std::vector<ScriptedInput> s;
  std::string error;
  ASSERT_TRUE(parse_input_script("3:key=f1;5:click=640:360;5:key=space;7:press=u;9:release=u;2:scroll=-1", s, &error))
      << error;
  ASSERT_EQ(s.size(), 10u);
  EXPECT_EQ(s[0].frame, 3);
  EXPECT_EQ(s[0].event.code, GLFW_KEY_F1);
  EXPECT_EQ(s[0].event.action, GLFW_PRESS);
  EXPECT_EQ(s[1].event.action, GLFW_RELEASE);
  EXPECT_EQ(s[2].event.type, InputEvent::Type::Move);
  EXPECT_DOUBLE_EQ(s[2].event.x, 640.0);
  EXPECT_EQ(s[3].event.type, InputEvent::Type::Button);
  EXPECT_EQ(s[7].event.code, GLFW_KEY_U);
  EXPECT_EQ(s[9].event.type, InputEvent::Type::Scroll);
  EXPECT_DOUBLE_EQ(s[9].event.y, -1.0);
  for (const char* bad : {"key=f1", "x:key=f1", "3:key=nosuchkey", "3:click=12", "3:jump=1"}) {
    std::vector<ScriptedInput> out;
    EXPECT_FALSE(parse_input_script(bad, out, &error)) << bad;
    EXPECT_NE(error.find(bad[0] == 'x' ? "x:key" : bad), std::string::npos) << error;
  }
}

}  // namespace
}  // namespace cl::viewer
