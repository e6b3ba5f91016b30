// The headers most engine tests include, compiled once and reused by each GoogleTest executable
// (see tests/CMakeLists.txt): GoogleTest, the standard library and the Vulkan headers were much of
// each test's compile time, and CI has two cores.
#pragma once
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "trit/model.h"
#include "trit/reference_ops.h"
#include "vulkan/context.h"
