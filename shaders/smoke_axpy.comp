#version 450
// Smoke test shader: y[i] = a * x[i] + y[i]. Proves the build's SPIR-V path and a device end to end.
layout(local_size_x_id = 0) in;
layout(std430, binding = 0) readonly buffer X { float x[]; };
layout(std430, binding = 1) buffer Y { float y[]; };
layout(push_constant) uniform Push { float a; uint n; } pc;
void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i < pc.n) y[i] = pc.a * x[i] + y[i];
}
