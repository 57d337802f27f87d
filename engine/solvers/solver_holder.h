// A solver held by value: copying the holder clones the solver (Solver::clone), moving it moves the pointer.
// A class that keeps its solver in one copies like any other value, so its copy constructor and copy
// assignment can be defaulted and never forget a member.
#pragma once

#include <memory>
#include <utility>

#include "solvers/solver.h"

namespace cl {

class SolverHolder {
 public:
  explicit SolverHolder(std::unique_ptr<Solver> solver) : solver_(std::move(solver)) {}
  SolverHolder(const SolverHolder& other) : solver_(other.solver_ ? other.solver_->clone() : nullptr) {}
  SolverHolder& operator=(const SolverHolder& other) {
    if (this != &other) solver_ = other.solver_ ? other.solver_->clone() : nullptr;
    return *this;
  }
  SolverHolder(SolverHolder&&) noexcept = default;
  SolverHolder& operator=(SolverHolder&&) noexcept = default;
  ~SolverHolder() = default;

  // Replaces the held solver.
  SolverHolder& operator=(std::unique_ptr<Solver> solver) {
    solver_ = std::move(solver);
    return *this;
  }

  // Constness carries over to the solver, as it would for a member held by value.
  Solver& operator*() { return *solver_; }
  const Solver& operator*() const { return *solver_; }
  Solver* operator->() { return solver_.get(); }
  const Solver* operator->() const { return solver_.get(); }

 private:
  std::unique_ptr<Solver> solver_;  // null only after a move
};

}  // namespace cl
