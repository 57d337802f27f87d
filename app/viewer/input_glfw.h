// The viewer's GLFW input callbacks: every key, character, mouse button, cursor move and scroll goes into an
// InputQueue (input_queue.h) in the order it happened, and each frame hands ImGui one frame's worth of it, through
// the ImGui GLFW backend's own callbacks where they exist. Focus and the cursor entering the window go straight to
// the backend.
#pragma once

#include <vector>

#include "viewer/input_queue.h"

struct GLFWwindow;

namespace cl::viewer {

// Installs the callbacks on `window` (whose ImGui backend was initialised without its own) recording into `queue`,
// which must outlive the window's event processing.
void install_input_callbacks(GLFWwindow* window, InputQueue* queue);

// Records `event` as the callbacks would have (test input, CONTACTLAB_TEST_INPUT).
void inject_input(GLFWwindow* window, const InputEvent& event);

// Takes this frame's events from the queue and gives them to ImGui. Call between ImGui_ImplGlfw_NewFrame and
// ImGui::NewFrame: it overrides the mouse position and buttons the backend read from GLFW with the queue's.
void feed_imgui(GLFWwindow* window, InputQueue& queue);

}  // namespace cl::viewer
