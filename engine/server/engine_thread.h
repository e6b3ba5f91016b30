#pragma once
// The engine thread of a scheduler: `setup` runs on it first (so the thread owns every engine object it
// makes), the constructor waits for it and rethrows what it threw (after the thread has ended), then the
// thread goes on with `run`.
#include <functional>
#include <thread>

namespace trit::server {

std::thread start_engine_thread(std::function<void()> setup, std::function<void()> run);

}  // namespace trit::server
