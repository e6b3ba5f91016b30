// The I2_S ternary codes as the matrix kernels consume them (include after common.glsl). A code word
// holds, for each of the 4 groups g, four 2-bit codes at bits 6-2g of its bytes, code - 1 in {-1, 0, 1}.
// TRIT_DOT: declare OpSDot for the packed int8 dot product (the *_dot wrappers and the GEMM).
#ifdef TRIT_DOT
#extension GL_EXT_spirv_intrinsics : require
// OpSDot (4450) with the PackedVectorFormat4x8Bit operand: capabilities DotProduct (6019) and
// DotProductInput4x8BitPacked (6018). glslang 12 has no GL_EXT_integer_dot_product, hence the intrinsic.
spirv_instruction(extensions = ["SPV_KHR_integer_dot_product"], capabilities = [6019, 6018], id = 4450)
int sdot4x8(int a, int b, spirv_literal int packed_format);
#endif

// (code - 1) * x for the four bytes: codes at bits shift + 8b, activations int8 in byte b of a.
int dot4(uint wword, uint shift, uint a) {
  int r = 0;
  for (int b = 0; b < 4; ++b) {
    int c = int((wword >> (shift + 8u * uint(b))) & 3u) - 1;
    r += c * bitfieldExtract(int(a), 8 * b, 8);
  }
  return r;
}

// The four codes at bits shift..shift+1 of each byte as packed int8 (code - 1): codes are 0..2, so
// c + 0x7F stays inside its byte and flipping bit 7 gives 0xFF, 0x00, 0x01.
uint ternary_word(uint wword, uint shift) {
  return (((wword >> shift) & 0x03030303u) + 0x7F7F7F7Fu) ^ 0x80808080u;
}
