#pragma once
// Rewrites a SPIR-V module that uses SPV_NV_cooperative_matrix into the same module on
// SPV_KHR_cooperative_matrix, at build time. Why a tool of our own: Debian 12's glslang (12) cannot
// compile GL_KHR_cooperative_matrix and its spirv-tools (2023.1) cannot assemble the KHR opcodes, and
// nothing newer is installable; the two extensions map almost one to one, so the prefill GEMM is still
// compiled from its one GLSL source (with the NV extension) and each KHR twin is derived from that
// module (cmake/TritShaders.cmake: glslang -> spirv-val on the NV module -> this rewrite -> embedded).
//
// The mapping (opcode numbers from the SPIR-V registry, spirv.core.grammar.json):
//   OpCapability CooperativeMatrixNV (5357)      -> OpCapability CooperativeMatrixKHR (6022)
//   OpExtension "SPV_NV_cooperative_matrix"      -> OpExtension "SPV_KHR_cooperative_matrix"
//   OpTypeCooperativeMatrixNV (5358)             -> OpTypeCooperativeMatrixKHR (4456)
//     %t = comp scope rows cols                     %t = comp scope rows cols use
//     `use` is the <id> of a 32-bit integer OpConstant: MatrixAKHR 0, MatrixBKHR 1, MatrixAccumulatorKHR 2,
//     inferred per type from the multiply-adds: the type of A, of B, of C and of the result. Every
//     other instruction keeps its operands, so values carry their type's use through OpLoad, OpStore,
//     OpVariable, OpAccessChain, OpPhi, pointer and array types etc.; conversions (OpSConvert, ...)
//     join their operand's and result's types, which KHR requires to have the same use. A type with no
//     use (never reaching a multiply-add) or with two (A and B, say) is refused: one KHR type per use
//     would mean splitting the NV type and everything derived from it, which no shader of ours needs.
//   OpCooperativeMatrixLoadNV (5359)             -> OpCooperativeMatrixLoadKHR (4457)
//     rt r ptr stride colmajor [memory operands]    rt r ptr layout stride [memory operands]
//   OpCooperativeMatrixStoreNV (5360)            -> OpCooperativeMatrixStoreKHR (4458)
//     ptr obj stride colmajor [memory operands]     ptr obj layout stride [memory operands]
//     `colmajor` must be OpConstantTrue / OpConstantFalse; `layout` is the <id> of a 32-bit integer
//     OpConstant: ColumnMajorKHR 1 / RowMajorKHR 0. Stride stays in elements of the pointee type in both.
//   OpCooperativeMatrixMulAddNV (5361)           -> OpCooperativeMatrixMulAddKHR (4459)
//     rt r a b c                                    rt r a b c [operands]
//     NV takes an integer matrix's signedness from its component type's OpTypeInt Signedness; KHR from
//     the operands MatrixASignedComponentsKHR 0x1, MatrixBSigned.. 0x2, MatrixCSigned.. 0x4,
//     MatrixResultSigned.. 0x8, set here for each signed integer component type. Never
//     SaturatingAccumulationKHR: NV's integer sums are exact.
//   OpCooperativeMatrixLengthNV (5362)           -> OpCooperativeMatrixLengthKHR (4460)
// Instructions that may take cooperative-matrix types or values and mean the same in both extensions
// pass unchanged: OpTypePointer / OpTypeArray / OpTypeStruct / OpTypeFunction, OpVariable (Function or
// Private), OpLoad, OpStore, OpCopyMemory, OpAccessChain, OpInBoundsAccessChain, OpCopyObject, OpPhi,
// OpUndef, OpFunction*, OpReturnValue, OpConstantComposite, OpCompositeConstruct / Extract / Insert,
// the arithmetic NV allows (OpSNegate, OpFNegate, OpIAdd, OpFAdd, OpISub, OpFSub, OpUDiv, OpSDiv,
// OpFDiv, OpMatrixTimesScalar) and its conversions (OpConvert*, OpUConvert, OpSConvert, OpFConvert).
// Any other instruction that names a cooperative-matrix type or value, and any instruction this tool
// has no operand layout for whose words include one, is refused, as are modules without the NV
// capability, without the Vulkan memory model (KHR requires it) or below SPIR-V 1.3.
#include <cstdint>
#include <span>
#include <vector>

#include "spirv_module.h"

namespace trit::spv {

// The KHR form of `nv`. Throws Error, saying which instruction and why, for anything it cannot convert
// exactly; the result is parsed back and checked (no NV opcode, capability or extension left, every
// result <id> below the bound) before it is returned.
std::vector<uint32_t> coop_nv_to_khr(std::span<const uint32_t> nv);

}  // namespace trit::spv
