// Embedding lookup, F16 -> F32, for the tokens of one chunk of the table: x[t] = table[tok[t]].
// The table may be split into chunks of rows (one binding each cannot exceed the device's storage range);
// the host records one dispatch per chunk and each skips the tokens outside its rows.
#include "common.glsl"
layout(local_size_x_id = 0) in;
layout(std430, binding = 1) readonly buffer Tok { int tok[]; };
layout(std430, binding = 2) readonly buffer Table { uint table[]; };  // rows of dim/2 packed F16 pairs
layout(std430, binding = 3) writeonly buffer X { real2 x[]; };
layout(push_constant) uniform Push { uint dim; uint row0; uint rows; } pc;
void main() {
  uint t = gl_WorkGroupID.y;
  if (t >= params.n_tokens) return;
  int id = tok[t];
  if (id < int(pc.row0) || id >= int(pc.row0 + pc.rows)) return;
  uint row = uint(id) - pc.row0;
  uint half_dim = pc.dim / 2;
  for (uint i = gl_LocalInvocationID.x; i < half_dim; i += gl_WorkGroupSize.x)
    x[t * half_dim + i] = real2(unpackHalf2x16(table[row * half_dim + i]));
}
