#pragma once
// Tokens per second while a reply streams: smoothed so the readout is steady, and sampled into a short
// history for the sparkline. The history stays bounded however long the reply: when it is full,
// neighbouring samples are averaged and the sampling interval doubles.
#include <QVariantList>

namespace trit::chat {

class SpeedMeter {
 public:
  static constexpr int kMaxSamples = 120;
  static constexpr double kTimeConstantS = 0.6;  // smoothing: about the last 0.6 s dominate

  void reset();
  // `pieces` arrived over the last `dtSeconds`.
  void add(int pieces, double dtSeconds);
  double smoothed() const { return smoothed_; }
  const QVariantList& history() const { return history_; }

 private:
  double smoothed_ = 0;
  bool primed_ = false;
  double sinceSample_ = 0;
  double interval_ = 0.2;  // seconds between history samples
  double accumulatedPieces_ = 0;
  QVariantList history_;
};

}  // namespace trit::chat
