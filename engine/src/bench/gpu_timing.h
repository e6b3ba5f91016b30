#pragma once
// The timing loop the bench's device probes share.
#include "vulkan/context.h"

namespace trit::bench {

// Median of five timed runs of `seq` after a warm-up run, in seconds: GPU timestamps 0..1 of `pool`
// when `timestamps`, else the wall clock around each submit.
double median_seconds(vk::CommandSequence& seq, const vk::TimestampPool& pool, bool timestamps);

}  // namespace trit::bench
