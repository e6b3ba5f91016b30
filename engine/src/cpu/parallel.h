#pragma once
// Splits [0, n) into `threads` contiguous ranges and runs fn(begin, end) on each, the calling thread
// taking the first. Plain std::thread, no pool: the CPU reference is a yardstick, and a thread start
// (tens of microseconds) is small next to the matrix products it carries. Each range writes its own
// outputs, so the results do not depend on the thread count.
#include <algorithm>
#include <cstddef>
#include <exception>
#include <thread>
#include <vector>

namespace trit::cpu {

template <typename Fn>
void parallel_for(std::size_t n, unsigned threads, Fn&& fn) {
  const std::size_t parts = std::clamp<std::size_t>(threads, 1, std::max<std::size_t>(n, 1));
  if (parts <= 1) {
    fn(std::size_t{0}, n);
    return;
  }
  std::vector<std::exception_ptr> errors(parts);
  std::vector<std::thread> workers;
  workers.reserve(parts - 1);
  auto range = [&](std::size_t p) {
    try {
      fn(n * p / parts, n * (p + 1) / parts);
    } catch (...) {
      errors[p] = std::current_exception();
    }
  };
  for (std::size_t p = 1; p < parts; ++p) workers.emplace_back(range, p);
  range(0);
  for (auto& w : workers) w.join();
  for (auto& e : errors)
    if (e) std::rethrow_exception(e);
}

}  // namespace trit::cpu
