// The build-time rewrite of NV-form cooperative-matrix SPIR-V into the KHR form
// (shaders/tools/coop_nv_to_khr.h): on the real modules of this build (the prefill GEMM, fp32 and f64
// activations), instruction by instruction against their NV originals, and on small hand-made modules
// for the conversions the GEMM does not exercise and for every refusal. No device is needed: lavapipe
// runs neither form, so this is what CI checks of the KHR path.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "coop_nv_to_khr.h"
#include "spirv_module.h"
#include "trit/shaders.h"

namespace {

using trit::spv::Error;
using trit::spv::Instruction;
using trit::spv::Module;
namespace op = trit::spv::op;
namespace cap = trit::spv::cap;

constexpr uint32_t kUseA = 0, kUseB = 1, kUseAcc = 2;

// A parsed module with its definitions and value types, for checks.
struct View {
  explicit View(const std::vector<uint32_t>& words) : m(trit::spv::parse(words)) {
    for (size_t i = 0; i < m.instructions.size(); ++i) {
      const Instruction& in = m.instructions[i];
      const auto l = trit::spv::layout(in);
      if (l.result < 0) continue;
      const uint32_t r = in.operands[static_cast<size_t>(l.result)];
      EXPECT_TRUE(def.emplace(r, i).second) << "%" << r << " defined twice";
      EXPECT_LT(r, m.bound);
      if (l.result_type >= 0) type_of[r] = in.operands[static_cast<size_t>(l.result_type)];
    }
  }
  const Instruction& of(uint32_t id) const { return m.instructions.at(def.at(id)); }
  // The value of a 32-bit integer OpConstant (fails the test for anything else).
  uint32_t int_constant(uint32_t id) const {
    const Instruction& c = of(id);
    EXPECT_EQ(c.opcode, op::Constant) << "%" << id;
    const Instruction& t = of(c.operands.at(0));
    EXPECT_EQ(t.opcode, op::TypeInt);
    EXPECT_EQ(t.operands.at(1), 32u) << "%" << id << " is not a 32-bit integer";
    return c.operands.at(2);
  }
  // A KHR matrix type's use.
  uint32_t use_of(uint32_t type) const {
    const Instruction& t = of(type);
    EXPECT_EQ(t.opcode, op::TypeCooperativeMatrixKHR);
    return int_constant(t.operands.at(5));
  }
  bool has_capability(uint32_t c) const {
    return std::any_of(m.instructions.begin(), m.instructions.end(),
                       [&](const Instruction& in) { return in.opcode == op::Capability && in.operands.at(0) == c; });
  }
  std::set<std::string> extensions() const {
    std::set<std::string> out;
    for (const auto& in : m.instructions)
      if (in.opcode == op::Extension) out.insert(trit::spv::decode_string(in.operands));
    return out;
  }
  size_t count(uint16_t opcode) const {
    return static_cast<size_t>(std::count_if(m.instructions.begin(), m.instructions.end(),
                                             [&](const Instruction& in) { return in.opcode == opcode; }));
  }
  Module m;
  std::map<uint32_t, size_t> def;
  std::map<uint32_t, uint32_t> type_of;
};

std::vector<uint32_t> embedded(const std::string& name) {
  const auto s = trit::shader_spirv(name);
  return {s.begin(), s.end()};
}

const char* const kCoopShaders[] = {"ternary_gemm_coop", "ternary_gemm_coop_f64"};

// The build embeds exactly what the library makes of the embedded NV module (the tool ran, on these).
TEST(SpirvCoopKhr, EmbeddedTwinsAreTheRewriteOfTheNvModules) {
  for (const char* name : kCoopShaders) {
    SCOPED_TRACE(name);
    const auto nv = embedded(name), khr = embedded(std::string(name) + "_khr");
    ASSERT_FALSE(nv.empty());
    ASSERT_FALSE(khr.empty()) << "the build embedded no KHR twin";
    EXPECT_EQ(trit::spv::coop_nv_to_khr(nv), khr);
  }
}

// Every instruction of the real modules against its NV original: the coop ones mapped as the tool's
// header documents, everything else unchanged, only constants added.
TEST(SpirvCoopKhr, RealModulesMapEveryCoopInstruction) {
  for (const char* name : kCoopShaders) {
    SCOPED_TRACE(name);
    const auto nv_words = embedded(name);
    const auto khr_words = trit::spv::coop_nv_to_khr(nv_words);
    const View nv(nv_words), khr(khr_words);
    EXPECT_EQ(trit::spv::serialize(khr.m), khr_words) << "re-parsing gives the same words";
    EXPECT_GE(khr.m.bound, nv.m.bound);
    EXPECT_EQ(khr.m.version, nv.m.version);

    // No NV trace; the KHR capability and extension; the memory model KHR requires.
    for (uint16_t o = op::TypeCooperativeMatrixNV; o <= op::CooperativeMatrixLengthNV; ++o)
      EXPECT_EQ(khr.count(o), 0u) << trit::spv::opcode_name(o);
    EXPECT_FALSE(khr.has_capability(cap::CooperativeMatrixNV));
    EXPECT_TRUE(khr.has_capability(cap::CooperativeMatrixKHR));
    EXPECT_TRUE(khr.has_capability(cap::VulkanMemoryModel));
    EXPECT_EQ(khr.extensions().count("SPV_NV_cooperative_matrix"), 0u);
    EXPECT_EQ(khr.extensions().count("SPV_KHR_cooperative_matrix"), 1u);

    // Pair the instructions, skipping the constants the rewrite added (results at or past NV's bound).
    std::vector<const Instruction*> kept;
    size_t added = 0;
    for (const auto& in : khr.m.instructions) {
      if (in.opcode == op::Constant && in.operands.at(1) >= nv.m.bound) {
        ++added;
        continue;
      }
      kept.push_back(&in);
    }
    EXPECT_EQ(added, khr.m.bound - nv.m.bound);
    ASSERT_EQ(kept.size(), nv.m.instructions.size());
    std::map<uint32_t, int> uses_seen;  // use -> matrix types with it
    size_t loads = 0, stores = 0, muladds = 0;
    for (size_t i = 0; i < kept.size(); ++i) {
      const Instruction& a = nv.m.instructions[i];
      const Instruction& b = *kept[i];
      const auto& x = a.operands;
      const auto& y = b.operands;
      SCOPED_TRACE(trit::spv::opcode_name(a.opcode) + " at word " + std::to_string(a.offset));
      switch (a.opcode) {
        case op::Capability:
          EXPECT_EQ(y.at(0), x.at(0) == cap::CooperativeMatrixNV ? cap::CooperativeMatrixKHR : x.at(0));
          break;
        case op::Extension:
          break;  // checked above
        case op::TypeCooperativeMatrixNV: {
          ASSERT_EQ(b.opcode, op::TypeCooperativeMatrixKHR);
          ASSERT_EQ(y.size(), 6u);
          EXPECT_EQ(std::vector<uint32_t>(y.begin(), y.begin() + 5), x);
          EXPECT_LT(khr.def.at(y[5]), khr.def.at(y[0])) << "the use constant is declared before the type";
          ++uses_seen[khr.use_of(y[0])];
          break;
        }
        case op::CooperativeMatrixLoadNV:
        case op::CooperativeMatrixStoreNV: {
          const bool load = a.opcode == op::CooperativeMatrixLoadNV;
          const size_t at = load ? 3 : 2;  // NV: stride, column major; KHR: layout, stride
          ASSERT_EQ(b.opcode, load ? op::CooperativeMatrixLoadKHR : op::CooperativeMatrixStoreKHR);
          ASSERT_EQ(y.size(), x.size());
          EXPECT_EQ(std::vector<uint32_t>(y.begin(), y.begin() + at), std::vector<uint32_t>(x.begin(), x.begin() + at));
          const uint16_t major = nv.of(x[at + 1]).opcode;
          ASSERT_TRUE(major == op::ConstantTrue || major == op::ConstantFalse);
          EXPECT_EQ(khr.int_constant(y[at]), major == op::ConstantTrue ? 1u : 0u) << "ColumnMajorKHR 1, RowMajorKHR 0";
          EXPECT_EQ(y[at + 1], x[at]) << "the stride";
          EXPECT_EQ(std::vector<uint32_t>(y.begin() + at + 2, y.end()),
                    std::vector<uint32_t>(x.begin() + at + 2, x.end()))
              << "the memory operands";
          (load ? loads : stores)++;
          break;
        }
        case op::CooperativeMatrixMulAddNV: {
          ASSERT_EQ(b.opcode, op::CooperativeMatrixMulAddKHR);
          ASSERT_EQ(y.size(), 6u);
          EXPECT_EQ(std::vector<uint32_t>(y.begin(), y.begin() + 5), x);
          EXPECT_EQ(y[5], 0xfu) << "int8 A and B, int32 C and result: all signed";
          EXPECT_EQ(khr.use_of(khr.type_of.at(y[2])), kUseA);
          EXPECT_EQ(khr.use_of(khr.type_of.at(y[3])), kUseB);
          EXPECT_EQ(khr.use_of(khr.type_of.at(y[4])), kUseAcc);
          EXPECT_EQ(khr.use_of(y[0]), kUseAcc);
          ++muladds;
          break;
        }
        default:
          EXPECT_EQ(b.opcode, a.opcode);
          EXPECT_EQ(y, x);
      }
    }
    EXPECT_EQ(uses_seen, (std::map<uint32_t, int>{{kUseA, 1}, {kUseB, 1}, {kUseAcc, 1}}));
    EXPECT_GT(loads, 0u);
    EXPECT_GT(stores, 0u);
    EXPECT_GT(muladds, 0u);
  }
}

// ---- Hand-made modules -------------------------------------------------------------------------------

class Asm {
 public:
  uint32_t id() { return next_++; }
  void op(uint16_t opcode, std::vector<uint32_t> operands) { body_.push_back({opcode, std::move(operands), 0}); }
  void op_str(uint16_t opcode, const std::string& s) { op(opcode, trit::spv::encode_string(s)); }
  std::vector<uint32_t> words(uint32_t version) const {
    Module m;
    m.version = version;
    m.bound = next_;
    m.instructions = body_;
    return trit::spv::serialize(m);
  }

 private:
  uint32_t next_ = 1;
  std::vector<Instruction> body_;
};

struct Ids {
  uint32_t uint = 0, int32 = 0, boolean = 0, f32 = 0, u3 = 0, u8 = 0, u16 = 0, tru = 0, a_type = 0, b_type = 0,
           c_type = 0;
  uint32_t label = 0, acc = 0, ptr = 0, a = 0, b = 0, c = 0, d = 0;
};

struct Knobs {
  uint32_t version = 0x00010500;
  bool nv_capability = true, memory_model = true;
  uint32_t char_signedness = 1;
  bool small_constants = false;    // OpConstant 0, 1, 2 of the uint type declared before the matrix types
  bool a_as_b = false;             // B's load gives a value of A's type: one NV type in two uses
  bool spec_column_major = false;  // A's load takes OpSpecConstantFalse
  // Extra instructions: after the types and constants, in main's body, after main.
  std::function<void(Asm&, const Ids&)> globals, body, functions;
};

constexpr uint16_t kTypeVoid = 19, kEntryPoint = 15, kExecutionMode = 16, kTypeVector = 23, kLabel = 248, kBranch = 249,
                   kReturn = 253, kFunctionEnd = 56, kSelect = 169;
constexpr uint32_t kWorkgroup = 4;

// A compute shader doing one int8 multiply-add: A and B loaded from shared memory, the accumulator in
// a Function variable, the sum stored back.
std::vector<uint32_t> module(const Knobs& k) {
  Asm s;
  Ids n;
  const uint32_t main = s.id();
  s.op(op::Capability, {cap::Shader});
  s.op(op::Capability, {39});  // Int8
  if (k.memory_model) s.op(op::Capability, {cap::VulkanMemoryModel});
  if (k.nv_capability) s.op(op::Capability, {cap::CooperativeMatrixNV});
  s.op_str(op::Extension, "SPV_NV_cooperative_matrix");
  s.op(op::MemoryModel, {0, 3});  // Logical Vulkan
  {
    auto ep = trit::spv::encode_string("main");
    ep.insert(ep.begin(), {5, main});  // GLCompute
    s.op(kEntryPoint, ep);
  }
  s.op(kExecutionMode, {main, 17, 32, 1, 1});  // LocalSize
  const uint32_t void_t = s.id(), fn_t = s.id();
  s.op(kTypeVoid, {void_t});
  s.op(op::TypeFunction, {fn_t, void_t});
  n.boolean = s.id();
  s.op(op::TypeBool, {n.boolean});
  n.uint = s.id();
  s.op(op::TypeInt, {n.uint, 32, 0});
  if (k.small_constants)
    for (uint32_t v : {0u, 1u, 2u}) s.op(op::Constant, {n.uint, s.id(), v});
  const uint32_t int_t = n.int32 = s.id(), char_t = s.id();
  s.op(op::TypeInt, {int_t, 32, 1});
  s.op(op::TypeInt, {char_t, 8, k.char_signedness});
  n.f32 = s.id();
  s.op(op::TypeFloat, {n.f32, 32});
  n.u3 = s.id();
  n.u8 = s.id();
  n.u16 = s.id();
  const uint32_t u32 = s.id();
  s.op(op::Constant, {n.uint, n.u3, 3});
  s.op(op::Constant, {n.uint, n.u8, 8});
  s.op(op::Constant, {n.uint, n.u16, 16});
  s.op(op::Constant, {n.uint, u32, 32});
  n.tru = s.id();
  const uint32_t fals = s.id();
  s.op(op::ConstantTrue, {n.boolean, n.tru});
  s.op(k.spec_column_major ? op::SpecConstantFalse : op::ConstantFalse, {n.boolean, fals});
  const uint32_t v4 = s.id(), arr = s.id(), parr = s.id(), pv4 = s.id(), smem = s.id();
  s.op(kTypeVector, {v4, n.uint, 4});
  s.op(op::TypeArray, {arr, v4, u32});
  s.op(op::TypePointer, {parr, kWorkgroup, arr});
  s.op(op::TypePointer, {pv4, kWorkgroup, v4});
  s.op(op::Variable, {parr, smem, kWorkgroup});
  n.a_type = s.id();
  s.op(op::TypeCooperativeMatrixNV, {n.a_type, char_t, n.u3, n.u16, u32});
  n.b_type = n.a_type;
  if (!k.a_as_b) {
    n.b_type = s.id();
    s.op(op::TypeCooperativeMatrixNV, {n.b_type, char_t, n.u3, u32, n.u8});
  }
  n.c_type = s.id();
  s.op(op::TypeCooperativeMatrixNV, {n.c_type, int_t, n.u3, n.u16, n.u8});
  const uint32_t pc = s.id(), i0 = s.id(), zero = s.id();
  s.op(op::TypePointer, {pc, trit::spv::storage::Function, n.c_type});
  s.op(op::Constant, {int_t, i0, 0});
  s.op(op::ConstantComposite, {n.c_type, zero, i0});
  if (k.globals) k.globals(s, n);

  s.op(op::Function, {void_t, main, 0, fn_t});
  n.label = s.id();
  s.op(kLabel, {n.label});
  n.acc = s.id();
  s.op(op::Variable, {pc, n.acc, trit::spv::storage::Function});
  n.ptr = s.id();
  s.op(op::AccessChain, {pv4, n.ptr, smem, n.u8});
  n.a = s.id();
  n.b = s.id();
  constexpr uint32_t kVisible = 0x10 | 0x20,
                     kAvailable = 0x8 | 0x20;  // MakePointer{Visible,Available} | NonPrivatePointer
  s.op(op::CooperativeMatrixLoadNV, {n.a_type, n.a, n.ptr, n.u8, fals, kVisible, n.u3});
  s.op(op::CooperativeMatrixLoadNV, {n.b_type, n.b, n.ptr, n.u8, n.tru, kVisible, n.u3});
  s.op(op::Store, {n.acc, zero});
  n.c = s.id();
  s.op(op::Load, {n.c_type, n.c, n.acc});
  n.d = s.id();
  s.op(op::CooperativeMatrixMulAddNV, {n.c_type, n.d, n.a, n.b, n.c});
  s.op(op::Store, {n.acc, n.d});
  if (k.body) k.body(s, n);
  const uint32_t e = s.id();
  s.op(op::Load, {n.c_type, e, n.acc});
  s.op(op::CooperativeMatrixStoreNV, {n.ptr, e, n.u8, n.tru, kAvailable, n.u3});
  s.op(kReturn, {});
  s.op(kFunctionEnd, {});
  if (k.functions) k.functions(s, n);
  return s.words(k.version);
}

// The rewrite's refusal message, or "" where it converted.
std::string refusal(const Knobs& k) {
  try {
    trit::spv::coop_nv_to_khr(module(k));
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(SpirvCoopKhr, HandMadeModuleConverts) {
  const auto nv = module({});
  const View khr(trit::spv::coop_nv_to_khr(nv));
  const View before(nv);
  // Uses 0, 1 and 2 and layout 0 and 1 had no constant: three new ones, right after the uint type.
  EXPECT_EQ(khr.m.bound, before.m.bound + 3);
  size_t type_int = 0;
  while (khr.m.instructions[type_int].opcode != op::TypeInt) ++type_int;
  for (size_t i = 1; i <= 3; ++i) {
    const Instruction& c = khr.m.instructions[type_int + i];
    EXPECT_EQ(c.opcode, op::Constant);
    EXPECT_EQ(c.operands.at(1), before.m.bound + i - 1);
    EXPECT_EQ(c.operands.at(2), i - 1);
  }
  size_t types = 0;
  for (const auto& in : khr.m.instructions)
    if (in.opcode == op::TypeCooperativeMatrixKHR) ++types;
  EXPECT_EQ(types, 3u);
  for (const auto& in : khr.m.instructions)
    if (in.opcode == op::CooperativeMatrixMulAddKHR) {
      EXPECT_EQ(khr.use_of(khr.type_of.at(in.operands[2])), kUseA);
      EXPECT_EQ(khr.use_of(khr.type_of.at(in.operands[3])), kUseB);
      EXPECT_EQ(khr.use_of(khr.type_of.at(in.operands[4])), kUseAcc);
      EXPECT_EQ(in.operands.at(5), 0xfu);
    }
}

TEST(SpirvCoopKhr, ReusesConstantsDeclaredBeforeTheTypes) {
  Knobs k;
  k.small_constants = true;
  const auto nv = module(k);
  const auto khr = trit::spv::coop_nv_to_khr(nv);
  EXPECT_EQ(View(khr).m.bound, View(nv).m.bound) << "no new <id>";
  EXPECT_EQ(khr.size(), nv.size() + 3 + 1) << "a use on each of 3 types, the signedness on the multiply-add";
}

TEST(SpirvCoopKhr, SignednessFollowsTheComponentTypes) {
  Knobs k;
  k.char_signedness = 0;  // uint8 A and B
  const View khr(trit::spv::coop_nv_to_khr(module(k)));
  for (const auto& in : khr.m.instructions)
    if (in.opcode == op::CooperativeMatrixMulAddKHR) {
      EXPECT_EQ(in.operands.at(5), 0xcu) << "only C and the result signed";
    }
}

// Values keep their type's use through phis; a conversion's result type takes its operand's use.
TEST(SpirvCoopKhr, UsesFlowThroughPhisAndConversions) {
  Knobs k;
  uint32_t f_type = 0, phi = 0, conv = 0;
  k.globals = [&](Asm& s, const Ids& n) {
    f_type = s.id();
    s.op(op::TypeCooperativeMatrixNV, {f_type, n.f32, n.u3, n.u16, n.u8});
  };
  k.body = [&](Asm& s, const Ids& n) {
    const uint32_t next = s.id();
    s.op(kBranch, {next});
    s.op(kLabel, {next});
    phi = s.id();
    s.op(op::Phi, {n.c_type, phi, n.d, n.label});
    conv = s.id();
    s.op(op::ConvertSToF, {f_type, conv, phi});
  };
  const View khr(trit::spv::coop_nv_to_khr(module(k)));
  EXPECT_EQ(khr.use_of(khr.type_of.at(phi)), kUseAcc);
  EXPECT_EQ(khr.use_of(khr.type_of.at(conv)), kUseAcc) << "the float accumulator reached through the conversion";
}

// Matrices as function parameters and results, element access, arithmetic and the length: unchanged
// but for the length's opcode.
TEST(SpirvCoopKhr, PassesCallsElementsArithmeticAndTheLength) {
  Knobs k;
  uint32_t fn_t = 0, fn = 0, pint = 0, len = 0;
  k.globals = [&](Asm& s, const Ids& n) {
    fn_t = s.id();
    fn = s.id();
    pint = s.id();
    s.op(op::TypeFunction, {fn_t, n.c_type, n.c_type});
    s.op(op::TypePointer, {pint, trit::spv::storage::Function, n.int32});
  };
  k.body = [&](Asm& s, const Ids& n) {
    const uint32_t r = s.id(), el = s.id();
    s.op(op::FunctionCall, {n.c_type, r, fn, n.d});
    s.op(op::CompositeExtract, {n.int32, el, r, 0});
    s.op(op::AccessChain, {pint, s.id(), n.acc, n.u8});
    len = s.id();
    s.op(op::CooperativeMatrixLengthNV, {n.uint, len, n.c_type});
  };
  k.functions = [&](Asm& s, const Ids& n) {
    const uint32_t param = s.id(), neg = s.id();
    s.op(op::Function, {n.c_type, fn, 0, fn_t});
    s.op(op::FunctionParameter, {n.c_type, param});
    s.op(kLabel, {s.id()});
    s.op(op::SNegate, {n.c_type, neg, param});
    s.op(op::ReturnValue, {neg});
    s.op(kFunctionEnd, {});
  };
  const auto nv = module(k);
  const View before(nv), khr(trit::spv::coop_nv_to_khr(nv));
  EXPECT_EQ(khr.of(len).opcode, op::CooperativeMatrixLengthKHR);
  EXPECT_EQ(khr.of(len).operands, before.of(len).operands);
  EXPECT_EQ(khr.of(fn).operands, before.of(fn).operands);
  EXPECT_EQ(khr.count(op::FunctionCall), 1u);
  EXPECT_EQ(khr.count(op::SNegate), 1u);
  EXPECT_EQ(khr.use_of(khr.of(len).operands.at(2)), kUseAcc) << "the length's matrix type";
}

TEST(SpirvCoopKhr, RefusesOneTypeInTwoUses) {
  Knobs k;
  k.a_as_b = true;
  EXPECT_NE(refusal(k).find("is used as A and B"), std::string::npos) << refusal(k);
}

TEST(SpirvCoopKhr, RefusesATypeWithoutUse) {
  Knobs k;
  k.globals = [](Asm& s, const Ids& n) { s.op(op::TypeCooperativeMatrixNV, {s.id(), n.f32, n.u3, n.u8, n.u8}); };
  EXPECT_NE(refusal(k).find("cannot be inferred"), std::string::npos) << refusal(k);
}

TEST(SpirvCoopKhr, RefusesASpecializationConstantLayout) {
  Knobs k;
  k.spec_column_major = true;
  EXPECT_NE(refusal(k).find("OpSpecConstantFalse, not OpConstantTrue or OpConstantFalse"), std::string::npos)
      << refusal(k);
}

TEST(SpirvCoopKhr, RefusesInstructionsWithoutAKnownKhrForm) {
  Knobs k;
  k.body = [](Asm& s, const Ids& n) { s.op(kSelect, {n.c_type, s.id(), n.tru, n.c, n.d}); };
  EXPECT_NE(refusal(k).find("OpSelect at word"), std::string::npos) << refusal(k);
  EXPECT_NE(refusal(k).find("has no KHR form"), std::string::npos) << refusal(k);
  k.body = [](Asm& s, const Ids& n) { s.op(7777, {n.d}); };  // no such opcode
  EXPECT_NE(refusal(k).find("Op7777 at word"), std::string::npos) << refusal(k);
  EXPECT_NE(refusal(k).find("no operand layout"), std::string::npos) << refusal(k);
  // The matrix length as a specialization constant: NV allows it, KHR does not.
  k.body = nullptr;
  k.globals = [](Asm& s, const Ids& n) {
    s.op(op::SpecConstantOp, {n.uint, s.id(), op::CooperativeMatrixLengthNV, n.c_type});
  };
  EXPECT_NE(refusal(k).find("OpSpecConstantOp"), std::string::npos) << refusal(k);
  // A matrix outside Function and Private storage.
  k.globals = [](Asm& s, const Ids& n) {
    const uint32_t p = s.id();
    s.op(op::TypePointer, {p, kWorkgroup, n.c_type});
    s.op(op::Variable, {p, s.id(), kWorkgroup});
  };
  EXPECT_NE(refusal(k).find("storage class 4"), std::string::npos) << refusal(k);
}

TEST(SpirvCoopKhr, RefusesModulesItCannotConvert) {
  Knobs k;
  k.nv_capability = false;
  EXPECT_NE(refusal(k).find("no CooperativeMatrixNV capability"), std::string::npos) << refusal(k);
  k = {};
  k.memory_model = false;
  EXPECT_NE(refusal(k).find("VulkanMemoryModel"), std::string::npos) << refusal(k);
  k = {};
  k.version = 0x00010200;
  EXPECT_NE(refusal(k).find("needs 1.3"), std::string::npos) << refusal(k);
  // Not a module, or a truncated one.
  auto words = module({});
  words.resize(words.size() - 3);  // OpFunctionEnd, OpReturn and the last word of the matrix store
  try {
    trit::spv::coop_nv_to_khr(words);
    ADD_FAILURE() << "a truncated module was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("past the end of the module"), std::string::npos) << e.what();
  }
  words = module({});
  words[0] = 0x12345678;
  EXPECT_THROW(trit::spv::coop_nv_to_khr(words), Error);
  // Its own output is no NV module.
  EXPECT_THROW(trit::spv::coop_nv_to_khr(trit::spv::coop_nv_to_khr(module({}))), Error);
}

}  // namespace
