#include "chat/speed_meter.h"

#include <cmath>

namespace trit::chat {

void SpeedMeter::reset() {
  *this = SpeedMeter();
}

void SpeedMeter::add(int pieces, double dtSeconds) {
  if (dtSeconds <= 0) return;
  const double rate = pieces / dtSeconds;
  if (!primed_) {
    smoothed_ = rate;
    primed_ = true;
  } else {
    // Exponential smoothing that does not depend on the frame rate: alpha from the elapsed time.
    const double alpha = 1.0 - std::exp(-dtSeconds / kTimeConstantS);
    smoothed_ += alpha * (rate - smoothed_);
  }
  // History samples are true averages over their interval, not the smoothed value at an instant.
  sinceSample_ += dtSeconds;
  accumulatedPieces_ += pieces;
  if (sinceSample_ < interval_) return;
  history_.append(accumulatedPieces_ / sinceSample_);
  sinceSample_ = 0;
  accumulatedPieces_ = 0;
  if (history_.size() >= kMaxSamples) {
    QVariantList halved;
    halved.reserve(kMaxSamples / 2);
    for (qsizetype i = 0; i + 1 < history_.size(); i += 2)
      halved.append((history_[i].toDouble() + history_[i + 1].toDouble()) / 2.0);
    history_ = halved;
    interval_ *= 2;
  }
}

}  // namespace trit::chat
