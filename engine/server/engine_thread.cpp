#include "engine_thread.h"

#include <exception>
#include <future>

namespace trit::server {

std::thread start_engine_thread(std::function<void()> setup, std::function<void()> run) {
  std::promise<void> ready;
  auto started = ready.get_future();
  std::thread thread([ready = std::move(ready), setup = std::move(setup), run = std::move(run)]() mutable {
    try {
      setup();
      ready.set_value();
    } catch (...) {
      ready.set_exception(std::current_exception());
      return;
    }
    run();
  });
  try {
    started.get();
  } catch (...) {
    thread.join();
    throw;
  }
  return thread;
}

}  // namespace trit::server
