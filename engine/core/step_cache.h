// A solver's cache of what its last step laid out (a layout kept for the next step's same solve): rebuilt from the
// state whenever it is missing, so a copy of the solver (a world copied into the history, a comparison lane) starts
// without it instead of carrying it. The copy then steps exactly as the original does, and holds only its state.
#pragma once

#include <utility>

namespace cl {

template <class T>
class StepCache {
 public:
  StepCache() = default;
  StepCache(const StepCache&) {}
  StepCache& operator=(const StepCache&) {
    value_ = T();
    return *this;
  }
  StepCache(StepCache&&) noexcept = default;
  StepCache& operator=(StepCache&&) noexcept = default;

  T& operator*() { return value_; }
  const T& operator*() const { return value_; }
  T* operator->() { return &value_; }
  const T* operator->() const { return &value_; }

 private:
  T value_;
};

}  // namespace cl
