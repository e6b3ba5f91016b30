// SPIR-V binary form: parsing, writing, operand layouts (spirv_module.h).
#include "spirv_module.h"

#include <algorithm>
#include <cstdio>

namespace trit::spv {
namespace {

// How the operands after the result type and result (where the opcode has them) are laid out.
enum class Tail : uint8_t {
  None,             // literals, strings or nothing
  Ids,              // every word an <id>
  IdsThenLiterals,  // `n` <id>s, then literals
  Memory,           // `n` <id>s, then optional memory operands (OpLoad, OpStore, ...)
  Memory2,          // `n` <id>s, then up to two sets of memory operands (OpCopyMemory*)
  LiteralThenIds,   // one literal, then <id>s (OpExtInst: after its set <id>; OpVariable; OpTypePointer)
  GroupOp,          // scope <id>, a literal group operation, then <id>s
  SpecConstantOp,   // a literal opcode, then that opcode's operands
  Switch,           // selector and default <id>s, then literal / label pairs
  Descriptive,      // names, source text, decorations, entry points, execution modes
};

struct Entry {
  uint16_t opcode;
  const char* name;
  bool result_type, result;
  Tail tail;
  // IdsThenLiterals, Memory, Memory2: the <id>s before the rest; LiteralThenIds: the <id>s before the literal.
  uint8_t n = 0;
};

// The opcodes glslang emits for compute shaders, with the cooperative-matrix ones of both extensions.
// Numbers and operand lists as in the SPIR-V registry's spirv.core.grammar.json.
constexpr Entry kTable[] = {
    {0, "OpNop", false, false, Tail::None},
    {1, "OpUndef", true, true, Tail::None},
    {2, "OpSourceContinued", false, false, Tail::Descriptive},
    {3, "OpSource", false, false, Tail::Descriptive},
    {4, "OpSourceExtension", false, false, Tail::Descriptive},
    {5, "OpName", false, false, Tail::Descriptive},
    {6, "OpMemberName", false, false, Tail::Descriptive},
    {7, "OpString", false, true, Tail::Descriptive},
    {8, "OpLine", false, false, Tail::Descriptive},
    {10, "OpExtension", false, false, Tail::None},
    {11, "OpExtInstImport", false, true, Tail::None},
    {12, "OpExtInst", true, true, Tail::LiteralThenIds, 1},
    {14, "OpMemoryModel", false, false, Tail::None},
    {15, "OpEntryPoint", false, false, Tail::Descriptive},
    {16, "OpExecutionMode", false, false, Tail::Descriptive},
    {17, "OpCapability", false, false, Tail::None},
    {19, "OpTypeVoid", false, true, Tail::None},
    {20, "OpTypeBool", false, true, Tail::None},
    {21, "OpTypeInt", false, true, Tail::None},
    {22, "OpTypeFloat", false, true, Tail::None},
    {23, "OpTypeVector", false, true, Tail::IdsThenLiterals, 1},
    {24, "OpTypeMatrix", false, true, Tail::IdsThenLiterals, 1},
    {25, "OpTypeImage", false, true, Tail::IdsThenLiterals, 1},
    {26, "OpTypeSampler", false, true, Tail::None},
    {27, "OpTypeSampledImage", false, true, Tail::Ids},
    {28, "OpTypeArray", false, true, Tail::Ids},
    {29, "OpTypeRuntimeArray", false, true, Tail::Ids},
    {30, "OpTypeStruct", false, true, Tail::Ids},
    {32, "OpTypePointer", false, true, Tail::LiteralThenIds, 0},
    {33, "OpTypeFunction", false, true, Tail::Ids},
    {39, "OpTypeForwardPointer", false, false, Tail::IdsThenLiterals, 1},
    {41, "OpConstantTrue", true, true, Tail::None},
    {42, "OpConstantFalse", true, true, Tail::None},
    {43, "OpConstant", true, true, Tail::None},
    {44, "OpConstantComposite", true, true, Tail::Ids},
    {46, "OpConstantNull", true, true, Tail::None},
    {48, "OpSpecConstantTrue", true, true, Tail::None},
    {49, "OpSpecConstantFalse", true, true, Tail::None},
    {50, "OpSpecConstant", true, true, Tail::None},
    {51, "OpSpecConstantComposite", true, true, Tail::Ids},
    {52, "OpSpecConstantOp", true, true, Tail::SpecConstantOp},
    {54, "OpFunction", true, true, Tail::LiteralThenIds, 0},
    {55, "OpFunctionParameter", true, true, Tail::None},
    {56, "OpFunctionEnd", false, false, Tail::None},
    {57, "OpFunctionCall", true, true, Tail::Ids},
    {59, "OpVariable", true, true, Tail::LiteralThenIds, 0},
    {61, "OpLoad", true, true, Tail::Memory, 1},
    {62, "OpStore", false, false, Tail::Memory, 2},
    {63, "OpCopyMemory", false, false, Tail::Memory2, 2},
    {64, "OpCopyMemorySized", false, false, Tail::Memory2, 3},
    {65, "OpAccessChain", true, true, Tail::Ids},
    {66, "OpInBoundsAccessChain", true, true, Tail::Ids},
    {67, "OpPtrAccessChain", true, true, Tail::Ids},
    {68, "OpArrayLength", true, true, Tail::IdsThenLiterals, 1},
    {70, "OpInBoundsPtrAccessChain", true, true, Tail::Ids},
    {71, "OpDecorate", false, false, Tail::Descriptive},
    {72, "OpMemberDecorate", false, false, Tail::Descriptive},
    {73, "OpDecorationGroup", false, true, Tail::Descriptive},
    {74, "OpGroupDecorate", false, false, Tail::Descriptive},
    {75, "OpGroupMemberDecorate", false, false, Tail::Descriptive},
    {77, "OpVectorExtractDynamic", true, true, Tail::Ids},
    {78, "OpVectorInsertDynamic", true, true, Tail::Ids},
    {79, "OpVectorShuffle", true, true, Tail::IdsThenLiterals, 2},
    {80, "OpCompositeConstruct", true, true, Tail::Ids},
    {81, "OpCompositeExtract", true, true, Tail::IdsThenLiterals, 1},
    {82, "OpCompositeInsert", true, true, Tail::IdsThenLiterals, 2},
    {83, "OpCopyObject", true, true, Tail::Ids},
    {84, "OpTranspose", true, true, Tail::Ids},
    {109, "OpConvertFToU", true, true, Tail::Ids},
    {110, "OpConvertFToS", true, true, Tail::Ids},
    {111, "OpConvertSToF", true, true, Tail::Ids},
    {112, "OpConvertUToF", true, true, Tail::Ids},
    {113, "OpUConvert", true, true, Tail::Ids},
    {114, "OpSConvert", true, true, Tail::Ids},
    {115, "OpFConvert", true, true, Tail::Ids},
    {116, "OpQuantizeToF16", true, true, Tail::Ids},
    {124, "OpBitcast", true, true, Tail::Ids},
    {126, "OpSNegate", true, true, Tail::Ids},
    {127, "OpFNegate", true, true, Tail::Ids},
    {128, "OpIAdd", true, true, Tail::Ids},
    {129, "OpFAdd", true, true, Tail::Ids},
    {130, "OpISub", true, true, Tail::Ids},
    {131, "OpFSub", true, true, Tail::Ids},
    {132, "OpIMul", true, true, Tail::Ids},
    {133, "OpFMul", true, true, Tail::Ids},
    {134, "OpUDiv", true, true, Tail::Ids},
    {135, "OpSDiv", true, true, Tail::Ids},
    {136, "OpFDiv", true, true, Tail::Ids},
    {137, "OpUMod", true, true, Tail::Ids},
    {138, "OpSRem", true, true, Tail::Ids},
    {139, "OpSMod", true, true, Tail::Ids},
    {140, "OpFRem", true, true, Tail::Ids},
    {141, "OpFMod", true, true, Tail::Ids},
    {142, "OpVectorTimesScalar", true, true, Tail::Ids},
    {143, "OpMatrixTimesScalar", true, true, Tail::Ids},
    {144, "OpVectorTimesMatrix", true, true, Tail::Ids},
    {145, "OpMatrixTimesVector", true, true, Tail::Ids},
    {146, "OpMatrixTimesMatrix", true, true, Tail::Ids},
    {147, "OpOuterProduct", true, true, Tail::Ids},
    {148, "OpDot", true, true, Tail::Ids},
    {149, "OpIAddCarry", true, true, Tail::Ids},
    {150, "OpISubBorrow", true, true, Tail::Ids},
    {151, "OpUMulExtended", true, true, Tail::Ids},
    {152, "OpSMulExtended", true, true, Tail::Ids},
    {154, "OpAny", true, true, Tail::Ids},
    {155, "OpAll", true, true, Tail::Ids},
    {156, "OpIsNan", true, true, Tail::Ids},
    {157, "OpIsInf", true, true, Tail::Ids},
    {164, "OpLogicalEqual", true, true, Tail::Ids},
    {165, "OpLogicalNotEqual", true, true, Tail::Ids},
    {166, "OpLogicalOr", true, true, Tail::Ids},
    {167, "OpLogicalAnd", true, true, Tail::Ids},
    {168, "OpLogicalNot", true, true, Tail::Ids},
    {169, "OpSelect", true, true, Tail::Ids},
    {170, "OpIEqual", true, true, Tail::Ids},
    {171, "OpINotEqual", true, true, Tail::Ids},
    {172, "OpUGreaterThan", true, true, Tail::Ids},
    {173, "OpSGreaterThan", true, true, Tail::Ids},
    {174, "OpUGreaterThanEqual", true, true, Tail::Ids},
    {175, "OpSGreaterThanEqual", true, true, Tail::Ids},
    {176, "OpULessThan", true, true, Tail::Ids},
    {177, "OpSLessThan", true, true, Tail::Ids},
    {178, "OpULessThanEqual", true, true, Tail::Ids},
    {179, "OpSLessThanEqual", true, true, Tail::Ids},
    {180, "OpFOrdEqual", true, true, Tail::Ids},
    {181, "OpFUnordEqual", true, true, Tail::Ids},
    {182, "OpFOrdNotEqual", true, true, Tail::Ids},
    {183, "OpFUnordNotEqual", true, true, Tail::Ids},
    {184, "OpFOrdLessThan", true, true, Tail::Ids},
    {185, "OpFUnordLessThan", true, true, Tail::Ids},
    {186, "OpFOrdGreaterThan", true, true, Tail::Ids},
    {187, "OpFUnordGreaterThan", true, true, Tail::Ids},
    {188, "OpFOrdLessThanEqual", true, true, Tail::Ids},
    {189, "OpFUnordLessThanEqual", true, true, Tail::Ids},
    {190, "OpFOrdGreaterThanEqual", true, true, Tail::Ids},
    {191, "OpFUnordGreaterThanEqual", true, true, Tail::Ids},
    {194, "OpShiftRightLogical", true, true, Tail::Ids},
    {195, "OpShiftRightArithmetic", true, true, Tail::Ids},
    {196, "OpShiftLeftLogical", true, true, Tail::Ids},
    {197, "OpBitwiseOr", true, true, Tail::Ids},
    {198, "OpBitwiseXor", true, true, Tail::Ids},
    {199, "OpBitwiseAnd", true, true, Tail::Ids},
    {200, "OpNot", true, true, Tail::Ids},
    {201, "OpBitFieldInsert", true, true, Tail::Ids},
    {202, "OpBitFieldSExtract", true, true, Tail::Ids},
    {203, "OpBitFieldUExtract", true, true, Tail::Ids},
    {204, "OpBitReverse", true, true, Tail::Ids},
    {205, "OpBitCount", true, true, Tail::Ids},
    {224, "OpControlBarrier", false, false, Tail::Ids},
    {225, "OpMemoryBarrier", false, false, Tail::Ids},
    {227, "OpAtomicLoad", true, true, Tail::Ids},
    {228, "OpAtomicStore", false, false, Tail::Ids},
    {229, "OpAtomicExchange", true, true, Tail::Ids},
    {230, "OpAtomicCompareExchange", true, true, Tail::Ids},
    {232, "OpAtomicIIncrement", true, true, Tail::Ids},
    {233, "OpAtomicIDecrement", true, true, Tail::Ids},
    {234, "OpAtomicIAdd", true, true, Tail::Ids},
    {235, "OpAtomicISub", true, true, Tail::Ids},
    {236, "OpAtomicSMin", true, true, Tail::Ids},
    {237, "OpAtomicUMin", true, true, Tail::Ids},
    {238, "OpAtomicSMax", true, true, Tail::Ids},
    {239, "OpAtomicUMax", true, true, Tail::Ids},
    {240, "OpAtomicAnd", true, true, Tail::Ids},
    {241, "OpAtomicOr", true, true, Tail::Ids},
    {242, "OpAtomicXor", true, true, Tail::Ids},
    {245, "OpPhi", true, true, Tail::Ids},
    {246, "OpLoopMerge", false, false, Tail::IdsThenLiterals, 2},
    {247, "OpSelectionMerge", false, false, Tail::IdsThenLiterals, 1},
    {248, "OpLabel", false, true, Tail::None},
    {249, "OpBranch", false, false, Tail::Ids},
    {250, "OpBranchConditional", false, false, Tail::IdsThenLiterals, 3},
    {251, "OpSwitch", false, false, Tail::Switch},
    {252, "OpKill", false, false, Tail::None},
    {253, "OpReturn", false, false, Tail::None},
    {254, "OpReturnValue", false, false, Tail::Ids},
    {255, "OpUnreachable", false, false, Tail::None},
    {317, "OpNoLine", false, false, Tail::Descriptive},
    {330, "OpModuleProcessed", false, false, Tail::Descriptive},
    {331, "OpExecutionModeId", false, false, Tail::Descriptive},
    {332, "OpDecorateId", false, false, Tail::Descriptive},
    {333, "OpGroupNonUniformElect", true, true, Tail::Ids},
    {334, "OpGroupNonUniformAll", true, true, Tail::Ids},
    {335, "OpGroupNonUniformAny", true, true, Tail::Ids},
    {336, "OpGroupNonUniformAllEqual", true, true, Tail::Ids},
    {337, "OpGroupNonUniformBroadcast", true, true, Tail::Ids},
    {338, "OpGroupNonUniformBroadcastFirst", true, true, Tail::Ids},
    {339, "OpGroupNonUniformBallot", true, true, Tail::Ids},
    {340, "OpGroupNonUniformInverseBallot", true, true, Tail::Ids},
    {341, "OpGroupNonUniformBallotBitExtract", true, true, Tail::Ids},
    {342, "OpGroupNonUniformBallotBitCount", true, true, Tail::GroupOp},
    {343, "OpGroupNonUniformBallotFindLSB", true, true, Tail::Ids},
    {344, "OpGroupNonUniformBallotFindMSB", true, true, Tail::Ids},
    {345, "OpGroupNonUniformShuffle", true, true, Tail::Ids},
    {346, "OpGroupNonUniformShuffleXor", true, true, Tail::Ids},
    {347, "OpGroupNonUniformShuffleUp", true, true, Tail::Ids},
    {348, "OpGroupNonUniformShuffleDown", true, true, Tail::Ids},
    {349, "OpGroupNonUniformIAdd", true, true, Tail::GroupOp},
    {350, "OpGroupNonUniformFAdd", true, true, Tail::GroupOp},
    {351, "OpGroupNonUniformIMul", true, true, Tail::GroupOp},
    {352, "OpGroupNonUniformFMul", true, true, Tail::GroupOp},
    {353, "OpGroupNonUniformSMin", true, true, Tail::GroupOp},
    {354, "OpGroupNonUniformUMin", true, true, Tail::GroupOp},
    {355, "OpGroupNonUniformFMin", true, true, Tail::GroupOp},
    {356, "OpGroupNonUniformSMax", true, true, Tail::GroupOp},
    {357, "OpGroupNonUniformUMax", true, true, Tail::GroupOp},
    {358, "OpGroupNonUniformFMax", true, true, Tail::GroupOp},
    {359, "OpGroupNonUniformBitwiseAnd", true, true, Tail::GroupOp},
    {360, "OpGroupNonUniformBitwiseOr", true, true, Tail::GroupOp},
    {361, "OpGroupNonUniformBitwiseXor", true, true, Tail::GroupOp},
    {362, "OpGroupNonUniformLogicalAnd", true, true, Tail::GroupOp},
    {363, "OpGroupNonUniformLogicalOr", true, true, Tail::GroupOp},
    {364, "OpGroupNonUniformLogicalXor", true, true, Tail::GroupOp},
    {365, "OpGroupNonUniformQuadBroadcast", true, true, Tail::Ids},
    {366, "OpGroupNonUniformQuadSwap", true, true, Tail::Ids},
    {4416, "OpTerminateInvocation", false, false, Tail::None},
    {4450, "OpSDot", true, true, Tail::IdsThenLiterals, 2},
    {4451, "OpUDot", true, true, Tail::IdsThenLiterals, 2},
    {4452, "OpSUDot", true, true, Tail::IdsThenLiterals, 2},
    // SPV_KHR_cooperative_matrix (the tool's output)
    {4456, "OpTypeCooperativeMatrixKHR", false, true, Tail::Ids},
    {4457, "OpCooperativeMatrixLoadKHR", true, true, Tail::Memory, 3},     // pointer, layout, stride
    {4458, "OpCooperativeMatrixStoreKHR", false, false, Tail::Memory, 4},  // pointer, object, layout, stride
    {4459, "OpCooperativeMatrixMulAddKHR", true, true, Tail::IdsThenLiterals, 3},
    {4460, "OpCooperativeMatrixLengthKHR", true, true, Tail::Ids},
    // SPV_NV_cooperative_matrix (the tool's input)
    {5358, "OpTypeCooperativeMatrixNV", false, true, Tail::Ids},
    {5359, "OpCooperativeMatrixLoadNV", true, true, Tail::Memory, 3},     // pointer, stride, column major
    {5360, "OpCooperativeMatrixStoreNV", false, false, Tail::Memory, 4},  // pointer, object, stride, column major
    {5361, "OpCooperativeMatrixMulAddNV", true, true, Tail::Ids},
    {5362, "OpCooperativeMatrixLengthNV", true, true, Tail::Ids},
    {5632, "OpDecorateString", false, false, Tail::Descriptive},
    {5633, "OpMemberDecorateString", false, false, Tail::Descriptive},
};

static_assert(std::is_sorted(std::begin(kTable), std::end(kTable),
                             [](const Entry& a, const Entry& b) { return a.opcode < b.opcode; }),
              "kTable is searched by bisection");

const Entry* find(uint16_t opcode) {
  const auto it = std::lower_bound(std::begin(kTable), std::end(kTable), opcode,
                                   [](const Entry& e, uint16_t o) { return e.opcode < o; });
  return it != std::end(kTable) && it->opcode == opcode ? it : nullptr;
}

std::string where(const Instruction& in) {
  return opcode_name(in.opcode) + (in.offset ? " at word " + std::to_string(in.offset) : std::string());
}

}  // namespace

std::string opcode_name(uint16_t opcode) {
  const Entry* e = find(opcode);
  return e ? e->name : "Op" + std::to_string(opcode);
}

Module parse(std::span<const uint32_t> words) {
  if (words.size() < 5)
    throw Error("not a SPIR-V module: " + std::to_string(words.size()) + " words, less than a header");
  if (words[0] != kMagic) {
    throw Error(words[0] == 0x03022307 ? "a big-endian SPIR-V module: only little-endian modules are read"
                                       : "not a SPIR-V module: no magic number");
  }
  if (words[4] != 0) throw Error("SPIR-V header: schema " + std::to_string(words[4]) + ", not 0");
  Module m;
  m.version = words[1];
  m.generator = words[2];
  m.bound = words[3];
  for (size_t at = 5; at < words.size();) {
    const uint32_t count = words[at] >> 16;
    if (count == 0) throw Error("instruction at word " + std::to_string(at) + " has a word count of 0");
    if (at + count > words.size())
      throw Error("instruction at word " + std::to_string(at) + " (" + opcode_name(words[at] & 0xffff) + ") runs " +
                  std::to_string(at + count - words.size()) + " words past the end of the module");
    Instruction in;
    in.opcode = static_cast<uint16_t>(words[at] & 0xffff);
    in.operands.assign(words.begin() + static_cast<std::ptrdiff_t>(at) + 1,
                       words.begin() + static_cast<std::ptrdiff_t>(at + count));
    in.offset = at;
    m.instructions.push_back(std::move(in));
    at += count;
  }
  return m;
}

std::vector<uint32_t> serialize(const Module& m) {
  std::vector<uint32_t> out{kMagic, m.version, m.generator, m.bound, 0};
  for (const Instruction& in : m.instructions) {
    const size_t count = in.operands.size() + 1;
    if (count > 0xffff)
      throw Error(opcode_name(in.opcode) + " would have " + std::to_string(count) + " words (at most 65535)");
    out.push_back(static_cast<uint32_t>(count) << 16 | in.opcode);
    out.insert(out.end(), in.operands.begin(), in.operands.end());
  }
  return out;
}

std::string decode_string(std::span<const uint32_t> operands, size_t first) {
  std::string s;
  for (size_t i = first; i < operands.size(); ++i)
    for (int b = 0; b < 4; ++b) {
      const char c = static_cast<char>((operands[i] >> (8 * b)) & 0xff);
      if (c == '\0') return s;
      s += c;
    }
  throw Error("a literal string without its terminating NUL");
}

std::vector<uint32_t> encode_string(std::string_view s) {
  std::vector<uint32_t> w(s.size() / 4 + 1, 0);  // always room for the NUL
  for (size_t i = 0; i < s.size(); ++i) w[i / 4] |= uint32_t{static_cast<unsigned char>(s[i])} << (8 * (i % 4));
  return w;
}

size_t skip_memory_operands(const Instruction& in, size_t first, std::vector<size_t>* ids) {
  if (first >= in.operands.size()) return first;
  const uint32_t mask = in.operands[first];
  // MemoryAccess bits and their parameters, lowest bit first: Volatile, Aligned (literal), Nontemporal,
  // MakePointerAvailable (scope <id>), MakePointerVisible (scope <id>), NonPrivatePointer,
  // AliasScopeINTEL (<id>), NoAliasINTEL (<id>).
  constexpr uint32_t kVolatile = 0x1, kAligned = 0x2, kNontemporal = 0x4, kAvailable = 0x8, kVisible = 0x10,
                     kNonPrivate = 0x20, kAliasScope = 0x10000, kNoAlias = 0x20000;
  constexpr uint32_t kKnown =
      kVolatile | kAligned | kNontemporal | kAvailable | kVisible | kNonPrivate | kAliasScope | kNoAlias;
  if (mask & ~kKnown) {
    char bits[16];
    std::snprintf(bits, sizeof bits, "0x%x", mask & ~kKnown);
    throw Error(where(in) + ": memory operand bits " + bits + " are not in the MemoryAccess table this tool knows");
  }
  size_t at = first + 1;
  for (uint32_t bit : {kAligned, kAvailable, kVisible, kAliasScope, kNoAlias}) {
    if (!(mask & bit)) continue;
    if (at >= in.operands.size()) throw Error(where(in) + ": a memory operand's parameter is missing");
    if (bit != kAligned && ids) ids->push_back(at);
    ++at;
  }
  return at;
}

Layout layout(const Instruction& in) {
  Layout l;
  const Entry* e = find(in.opcode);
  if (!e) return l;
  l.known = true;
  const auto& ops = in.operands;
  size_t at = 0;
  auto need = [&](size_t n) {
    if (ops.size() < n)
      throw Error(where(in) + " has " + std::to_string(ops.size()) + " operand words, fewer than its layout's " +
                  std::to_string(n));
  };
  if (e->tail == Tail::Descriptive) {
    l.descriptive = true;
    if (e->result) {
      need(1);
      l.result = 0;
    }
    return l;
  }
  if (e->result_type) {
    need(at + 1);
    l.result_type = static_cast<int>(at);
    l.ids.push_back(at++);
  }
  if (e->result) {
    need(at + 1);
    l.result = static_cast<int>(at++);
  }
  auto ids_from = [&](size_t from, size_t to) {
    for (size_t i = from; i < to; ++i) l.ids.push_back(i);
  };
  switch (e->tail) {
    case Tail::None:
    case Tail::Descriptive:
      break;
    case Tail::Ids:
      ids_from(at, ops.size());
      break;
    case Tail::IdsThenLiterals:
      need(at + e->n);
      ids_from(at, at + e->n);
      break;
    case Tail::Memory:
    case Tail::Memory2: {
      need(at + e->n);
      ids_from(at, at + e->n);
      size_t end = skip_memory_operands(in, at + e->n, &l.ids);
      if (e->tail == Tail::Memory2) end = skip_memory_operands(in, end, &l.ids);
      if (end != ops.size())
        throw Error(where(in) + " has " + std::to_string(ops.size() - end) + " words past its memory operands");
      break;
    }
    case Tail::LiteralThenIds:
      need(at + e->n + 1);
      ids_from(at, at + e->n);
      ids_from(at + e->n + 1, ops.size());
      break;
    case Tail::GroupOp:
      need(at + 2);
      l.ids.push_back(at);
      ids_from(at + 2, ops.size());
      break;
    case Tail::SpecConstantOp: {
      need(at + 1);
      // The operands of the opcode it names: those with literals after their <id>s are the exceptions.
      const uint32_t inner = ops[at];
      size_t n_ids = ops.size() - (at + 1);
      if (inner == 81)
        n_ids = 1;  // OpCompositeExtract: composite, then indices
      else if (inner == 82 || inner == 79)
        n_ids = 2;  // OpCompositeInsert, OpVectorShuffle
      need(at + 1 + n_ids);
      ids_from(at + 1, at + 1 + n_ids);
      break;
    }
    case Tail::Switch:
      need(at + 2);
      ids_from(at, at + 2);
      break;
  }
  return l;
}

}  // namespace trit::spv
