#pragma once
// SPIR-V's binary form as far as the build-time shader tools need it (coop_nv_to_khr.h): a module as
// its header and a list of instructions, parsed strictly (magic number, word counts, schema) and
// written back, and for the opcodes glslang emits in compute shaders, which operand words are <id>s.
// Opcode and enumerant numbers are the SPIR-V registry's (spirv.core.grammar.json in SPIRV-Headers);
// no system SPIR-V header is used, since Debian 12's predate SPV_KHR_cooperative_matrix.
#include <cstddef>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace trit::spv {

// A module the tools cannot parse or must not convert; what() says what and where.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

constexpr uint32_t kMagic = 0x07230203;

// The opcodes the tools name (the full table of known layouts is in spirv_module.cpp).
namespace op {
constexpr uint16_t Undef = 1, Name = 5, Extension = 10, MemoryModel = 14, Capability = 17, TypeBool = 20, TypeInt = 21,
                   TypeFloat = 22, TypeArray = 28, TypeRuntimeArray = 29, TypeStruct = 30, TypePointer = 32,
                   TypeFunction = 33, ConstantTrue = 41, ConstantFalse = 42, Constant = 43, ConstantComposite = 44,
                   SpecConstantTrue = 48, SpecConstantFalse = 49, SpecConstantComposite = 51, SpecConstantOp = 52,
                   Function = 54, FunctionParameter = 55, FunctionCall = 57, Variable = 59, Load = 61, Store = 62,
                   CopyMemory = 63, AccessChain = 65, InBoundsAccessChain = 66, CompositeConstruct = 80,
                   CompositeExtract = 81, CompositeInsert = 82, CopyObject = 83, ConvertFToU = 109, ConvertFToS = 110,
                   ConvertSToF = 111, ConvertUToF = 112, UConvert = 113, SConvert = 114, FConvert = 115, SNegate = 126,
                   FNegate = 127, IAdd = 128, FAdd = 129, ISub = 130, FSub = 131, UDiv = 134, SDiv = 135, FDiv = 136,
                   MatrixTimesScalar = 143, Phi = 245, ReturnValue = 254;
// SPV_KHR_cooperative_matrix
constexpr uint16_t TypeCooperativeMatrixKHR = 4456, CooperativeMatrixLoadKHR = 4457, CooperativeMatrixStoreKHR = 4458,
                   CooperativeMatrixMulAddKHR = 4459, CooperativeMatrixLengthKHR = 4460;
// SPV_NV_cooperative_matrix
constexpr uint16_t TypeCooperativeMatrixNV = 5358, CooperativeMatrixLoadNV = 5359, CooperativeMatrixStoreNV = 5360,
                   CooperativeMatrixMulAddNV = 5361, CooperativeMatrixLengthNV = 5362;
}  // namespace op

namespace cap {
constexpr uint32_t Shader = 1, VulkanMemoryModel = 5345, CooperativeMatrixNV = 5357, CooperativeMatrixKHR = 6022;
}

namespace storage {
constexpr uint32_t Private = 6, Function = 7;
}

struct Instruction {
  uint16_t opcode = 0;
  std::vector<uint32_t> operands;  // the words after the first (which holds the word count and opcode)
  size_t offset = 0;               // word offset in the parsed module (messages); 0 for new instructions
};

struct Module {
  uint32_t version = 0, generator = 0, bound = 0;
  std::vector<Instruction> instructions;
};

// Throws Error for anything but a well-formed little-endian module: a header of 5 words with the magic
// number and schema 0, and instructions whose word counts (at least 1) add up to the module's length.
Module parse(std::span<const uint32_t> words);
// Throws Error for an instruction of more than 65535 words.
std::vector<uint32_t> serialize(const Module& m);

// A literal string operand starting at operands[first]: throws Error when it has no terminating NUL.
std::string decode_string(std::span<const uint32_t> operands, size_t first = 0);
std::vector<uint32_t> encode_string(std::string_view s);

// Where an instruction's <id> operands are, as operand indices (Instruction::operands).
struct Layout {
  bool known = false;  // false: an opcode this table does not describe (nothing else is set)
  // Names, source text, decorations, entry points, execution modes: instructions that only describe
  // other <id>s, with the same meaning whatever form those take (nothing else below is set but result).
  bool descriptive = false;
  int result_type = -1;  // index of the result type <id>, or -1
  int result = -1;       // index of the result <id>, or -1
  // Every <id> operand other than the result (the result type included), except OpSwitch's case labels
  // (which name no type or value).
  std::vector<size_t> ids;
};
// Throws Error for a known opcode whose operands do not fit its layout (too few words, an unknown
// memory-operand bit).
Layout layout(const Instruction& in);

// "OpLoad", or "Op<number>" for an opcode outside the table.
std::string opcode_name(uint16_t opcode);

// The operand index just past the memory operands starting at operands[first] (a mask, then each set
// bit's parameters in bit order), appending the <id> parameters' indices to ids when it is not null.
// Throws Error for a bit the registry's MemoryAccess table (as of SPIR-V 1.6) does not define.
size_t skip_memory_operands(const Instruction& in, size_t first, std::vector<size_t>* ids);

}  // namespace trit::spv
