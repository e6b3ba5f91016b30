// Element e of the K (is_k) or V cache as `real`: the cache is packed F16 pairs when KV_F16, else F32.
// Shared by the attention kernels; the includer declares KV_F16 and the kc[] / vc[] buffers.
real cache_at(bool is_k, uint e) {
  if (KV_F16) {
    const uint w = is_k ? kc[e / 2] : vc[e / 2];
    const vec2 p = unpackHalf2x16(w);
    return real((e & 1u) == 0u ? p.x : p.y);
  }
  return real(uintBitsToFloat(is_k ? kc[e] : vc[e]));
}
