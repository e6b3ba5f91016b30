// SPV_NV_cooperative_matrix -> SPV_KHR_cooperative_matrix (coop_nv_to_khr.h).
#include "coop_nv_to_khr.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>

namespace trit::spv {
namespace {

constexpr const char* kNvExtension = "SPV_NV_cooperative_matrix";
constexpr const char* kKhrExtension = "SPV_KHR_cooperative_matrix";

enum Use : uint32_t { kUseA = 0, kUseB = 1, kUseAccumulator = 2 };
constexpr uint32_t kRowMajor = 0, kColumnMajor = 1;
constexpr uint32_t kASigned = 0x1, kBSigned = 0x2, kCSigned = 0x4, kResultSigned = 0x8;

const char* use_name(uint32_t u) {
  switch (u) {
    case kUseA:
      return "A";
    case kUseB:
      return "B";
    default:
      return "accumulator";
  }
}

std::string id_name(uint32_t id) {
  return "%" + std::to_string(id);
}

std::string where(const Instruction& in) {
  return opcode_name(in.opcode) + (in.offset ? " at word " + std::to_string(in.offset) : std::string());
}

bool is_conversion(uint16_t o) {
  return o >= op::ConvertFToU && o <= op::FConvert;
}

// Instructions that may name cooperative-matrix types or values and mean the same in both extensions.
bool passes_unchanged(uint16_t o) {
  switch (o) {
    case op::TypePointer:
    case op::TypeArray:
    case op::TypeStruct:
    case op::TypeFunction:
    case op::Variable:
    case op::Load:
    case op::Store:
    case op::CopyMemory:
    case op::AccessChain:
    case op::InBoundsAccessChain:
    case op::CopyObject:
    case op::Phi:
    case op::Undef:
    case op::Function:
    case op::FunctionParameter:
    case op::FunctionCall:
    case op::ReturnValue:
    case op::ConstantComposite:
    case op::CompositeConstruct:
    case op::CompositeExtract:
    case op::CompositeInsert:
    case op::SNegate:
    case op::FNegate:
    case op::IAdd:
    case op::FAdd:
    case op::ISub:
    case op::FSub:
    case op::UDiv:
    case op::SDiv:
    case op::FDiv:
    case op::MatrixTimesScalar:
      return true;
    default:
      return is_conversion(o);
  }
}

// Union-find over the NV matrix types, for the conversions that tie two types to one use.
struct TypeClasses {
  std::map<uint32_t, uint32_t> parent;
  uint32_t root(uint32_t t) {
    while (parent.at(t) != t) t = parent[t] = parent.at(parent.at(t));
    return t;
  }
  void join(uint32_t a, uint32_t b) { parent[root(a)] = root(b); }
};

class Rewriter {
 public:
  explicit Rewriter(std::span<const uint32_t> words) : m_(parse(words)) {}

  std::vector<uint32_t> run() {
    index();
    check_header_and_capabilities();
    find_matrix_carriers();
    check_every_use();
    infer_uses();
    rewrite();
    return serialize(m_);
  }

 private:
  const Instruction& def(uint32_t id, const Instruction& user) const {
    const auto it = def_.find(id);
    if (it == def_.end()) throw Error(where(user) + " names " + id_name(id) + ", which no instruction defines");
    return m_.instructions[it->second];
  }

  uint32_t type_of(uint32_t value, const Instruction& user) const {
    const auto it = type_of_.find(value);
    if (it == type_of_.end()) throw Error(where(user) + ": " + id_name(value) + " is not a value with a type");
    return it->second;
  }

  // The layouts, definitions and value types of the whole module.
  void index() {
    layouts_.reserve(m_.instructions.size());
    for (size_t i = 0; i < m_.instructions.size(); ++i) {
      const Instruction& in = m_.instructions[i];
      layouts_.push_back(layout(in));
      const Layout& l = layouts_.back();
      if (l.result < 0) continue;
      const uint32_t r = in.operands[static_cast<size_t>(l.result)];
      if (r == 0 || r >= m_.bound)
        throw Error(where(in) + " defines " + id_name(r) + ", outside the module's bound " + std::to_string(m_.bound));
      if (!def_.emplace(r, i).second) throw Error(where(in) + " defines " + id_name(r) + " a second time");
      if (l.result_type >= 0) type_of_[r] = in.operands[static_cast<size_t>(l.result_type)];
    }
  }

  void check_header_and_capabilities() {
    if (m_.version < 0x00010300)
      throw Error("SPIR-V version " + std::to_string(m_.version >> 16 & 0xff) + "." +
                  std::to_string(m_.version >> 8 & 0xff) + ": SPV_KHR_cooperative_matrix needs 1.3 or later");
    bool nv_cap = false, memory_model = false, nv_ext = false;
    for (const Instruction& in : m_.instructions) {
      if (in.opcode == op::Capability && !in.operands.empty()) {
        if (in.operands[0] == cap::CooperativeMatrixNV) nv_cap = true;
        if (in.operands[0] == cap::VulkanMemoryModel) memory_model = true;
        if (in.operands[0] == cap::CooperativeMatrixKHR)
          throw Error("the module already declares CooperativeMatrixKHR: it is not an NV-form module");
      }
      if (in.opcode == op::Extension) {
        const std::string name = decode_string(in.operands);
        if (name == kNvExtension) nv_ext = true;
        if (name == kKhrExtension) throw Error("the module already declares SPV_KHR_cooperative_matrix");
      }
    }
    if (!nv_cap) throw Error("the module declares no CooperativeMatrixNV capability: there is nothing to convert");
    if (!nv_ext)
      throw Error("the module declares CooperativeMatrixNV without OpExtension \"SPV_NV_cooperative_matrix\"");
    if (!memory_model)
      throw Error(
          "the module lacks the VulkanMemoryModel capability, which SPV_KHR_cooperative_matrix requires "
          "(GLSL: #extension GL_KHR_memory_scope_semantics)");
  }

  // Every type that is or contains an NV matrix (pointers, arrays, structs, function types), and every
  // value of such a type: what no instruction may name unless this tool knows it. One pass suffices:
  // a type is declared before any type or value made from it.
  void find_matrix_carriers() {
    for (size_t i = 0; i < m_.instructions.size(); ++i) {
      const Instruction& in = m_.instructions[i];
      const Layout& l = layouts_[i];
      if (in.opcode == op::TypeCooperativeMatrixNV) {
        check_matrix_type(in);
        nv_types_.push_back(in.operands[0]);
        carriers_.insert(in.operands[0]);
        if (first_nv_type_ == SIZE_MAX) first_nv_type_ = i;
        continue;
      }
      if (l.result < 0 || l.descriptive) continue;
      const uint32_t r = in.operands[static_cast<size_t>(l.result)];
      const bool carrier =
          l.result_type >= 0
              ? carriers_.count(in.operands[static_cast<size_t>(l.result_type)]) > 0  // a value
              : in.opcode >= op::TypeBool && in.opcode <= op::TypeFunction &&         // a type made of others
                    std::any_of(l.ids.begin(), l.ids.end(), [&](size_t k) { return carriers_.count(in.operands[k]); });
      if (carrier) carriers_.insert(r);
    }
    if (nv_types_.empty())
      throw Error("the module declares CooperativeMatrixNV but no OpTypeCooperativeMatrixNV: nothing to convert");
  }

  // KHR asks more of a matrix type's operands than NV: scope, rows and columns of 32-bit integer type.
  void check_matrix_type(const Instruction& in) const {
    if (in.operands.size() != 5)
      throw Error(where(in) + " has " + std::to_string(in.operands.size()) + " operands, not 5");
    const char* names[] = {"scope", "rows", "columns"};
    for (size_t k = 2; k < 5; ++k) {
      const Instruction& t = def(type_of(in.operands[k], in), in);
      if (t.opcode != op::TypeInt || t.operands.size() != 3 || t.operands[1] != 32)
        throw Error(where(in) + ": its " + names[k - 2] + " " + id_name(in.operands[k]) +
                    " is not a 32-bit integer, which SPV_KHR_cooperative_matrix requires");
    }
  }

  // Refuses every instruction that touches a matrix type or value unless it is in the mapping.
  void check_every_use() {
    for (size_t i = 0; i < m_.instructions.size(); ++i) {
      const Instruction& in = m_.instructions[i];
      const Layout& l = layouts_[i];
      if (l.descriptive) continue;
      if (!l.known) {
        for (uint32_t w : in.operands)
          if (carriers_.count(w))
            throw Error(where(in) + " (an instruction this tool has no operand layout for) names " + id_name(w) +
                        ", a cooperative-matrix type or value: refusing rather than guessing its KHR form");
        continue;
      }
      if (in.opcode >= op::TypeCooperativeMatrixNV && in.opcode <= op::CooperativeMatrixLengthNV) continue;
      const auto hit =
          std::find_if(l.ids.begin(), l.ids.end(), [&](size_t k) { return carriers_.count(in.operands[k]); });
      if (hit == l.ids.end()) continue;
      if (!passes_unchanged(in.opcode))
        throw Error(where(in) + " names " + id_name(in.operands[*hit]) +
                    ", a cooperative-matrix type or value, and this tool has no KHR form for it");
      if (in.opcode == op::Variable) {
        const uint32_t sc = in.operands[2];
        if (sc != storage::Function && sc != storage::Private)
          throw Error(where(in) + ": a cooperative matrix in storage class " + std::to_string(sc) +
                      " (only Function and Private may hold one)");
      }
    }
  }

  // Each NV type's use, from the multiply-adds (joined across conversions).
  void infer_uses() {
    TypeClasses classes;
    for (uint32_t t : nv_types_) classes.parent[t] = t;
    auto matrix_type = [&](uint32_t value, const Instruction& in, const char* what) {
      const uint32_t t = type_of(value, in);
      if (!classes.parent.count(t))
        throw Error(where(in) + ": " + what + " " + id_name(value) + " is not of an OpTypeCooperativeMatrixNV type");
      return t;
    };
    std::vector<std::pair<uint32_t, uint32_t>> seeds;  // (type, use)
    for (const Instruction& in : m_.instructions) {
      if (in.opcode == op::CooperativeMatrixMulAddNV) {
        if (in.operands.size() != 5)
          throw Error(where(in) + " has " + std::to_string(in.operands.size()) + " operands, not 5");
        const uint32_t rt = in.operands[0];
        if (!classes.parent.count(rt))
          throw Error(where(in) + ": its result type " + id_name(rt) + " is not a cooperative matrix type");
        seeds.emplace_back(matrix_type(in.operands[2], in, "A"), kUseA);
        seeds.emplace_back(matrix_type(in.operands[3], in, "B"), kUseB);
        seeds.emplace_back(matrix_type(in.operands[4], in, "C"), kUseAccumulator);
        seeds.emplace_back(rt, kUseAccumulator);
      } else if (is_conversion(in.opcode) && classes.parent.count(in.operands[0])) {
        classes.join(in.operands[0], matrix_type(in.operands[2], in, "the converted value"));
      }
    }
    std::map<uint32_t, std::set<uint32_t>> uses;  // class root -> uses
    for (const auto& [t, u] : seeds) uses[classes.root(t)].insert(u);
    for (uint32_t t : nv_types_) {
      const auto& u = uses[classes.root(t)];
      const Instruction& decl = m_.instructions[def_.at(t)];
      if (u.empty())
        throw Error(where(decl) + " " + id_name(t) +
                    " never reaches an OpCooperativeMatrixMulAddNV (directly or through "
                    "conversions), so its KHR use (A, B or accumulator) cannot be inferred");
      if (u.size() > 1) {
        std::string names;
        for (uint32_t x : u) names += std::string(names.empty() ? "" : " and ") + use_name(x);
        throw Error(where(decl) + " " + id_name(t) + " is used as " + names +
                    "; the KHR form needs one type per use and this tool does not split a type: give the operands "
                    "distinct GLSL types (another shape or specialization constant)");
      }
      use_of_[t] = *u.begin();
    }
  }

  // The <id> of a 32-bit integer OpConstant of `value`: an existing one declared before the first
  // matrix type, or a new one inserted just after the integer type's declaration.
  uint32_t int_constant(uint32_t value) {
    for (size_t i = 0; i < first_nv_type_; ++i) {
      const Instruction& in = m_.instructions[i];
      if (in.opcode == op::Constant && in.operands.size() == 3 && in.operands[0] == int_type_ &&
          in.operands[2] == value)
        return in.operands[1];
    }
    const auto it = added_.find(value);
    if (it != added_.end()) return it->second;
    const uint32_t id = m_.bound++;
    added_[value] = id;
    return id;
  }

  // The new constants' type: that of the first matrix type's scope, a 32-bit integer type
  // (check_matrix_type) necessarily declared before every matrix type.
  void choose_int_type() {
    const Instruction& first = m_.instructions[first_nv_type_];
    int_type_ = type_of(first.operands[2], first);
    int_type_at_ = def_.at(int_type_);
  }

  uint32_t signedness(uint32_t matrix_type, const Instruction& user, uint32_t bit) const {
    const Instruction& t = def(matrix_type, user);
    const Instruction& comp = def(t.operands[1], user);
    if (comp.opcode == op::TypeFloat) return 0;
    if (comp.opcode != op::TypeInt || comp.operands.size() != 3)
      throw Error(where(user) + ": matrix component type " + id_name(t.operands[1]) +
                  " is neither an integer nor a float type");
    return comp.operands[2] == 1 ? bit : 0;
  }

  uint32_t layout_constant(uint32_t column_major, const Instruction& user) {
    const Instruction& c = def(column_major, user);
    if (c.opcode == op::ConstantTrue) return int_constant(kColumnMajor);
    if (c.opcode == op::ConstantFalse) return int_constant(kRowMajor);
    throw Error(where(user) + ": its ColumnMajor operand " + id_name(column_major) + " is a " + opcode_name(c.opcode) +
                ", not OpConstantTrue or OpConstantFalse (a specialization constant has no KHR layout constant)");
  }

  void rewrite() {
    choose_int_type();
    for (Instruction& in : m_.instructions) {
      auto& o = in.operands;
      switch (in.opcode) {
        case op::Capability:
          if (o.at(0) == cap::CooperativeMatrixNV) o[0] = cap::CooperativeMatrixKHR;
          break;
        case op::Extension:
          if (decode_string(o) == kNvExtension) o = encode_string(kKhrExtension);
          break;
        case op::TypeCooperativeMatrixNV:
          in.opcode = op::TypeCooperativeMatrixKHR;
          o.push_back(int_constant(use_of_.at(o[0])));
          break;
        case op::CooperativeMatrixLoadNV: {
          // rt r ptr stride colmajor [memory] -> rt r ptr layout stride [memory]
          if (!use_of_.count(o[0]))
            throw Error(where(in) + ": its result type " + id_name(o[0]) + " is not a cooperative matrix type");
          const uint32_t stride = o[3], layout_id = layout_constant(o[4], in);
          o[3] = layout_id;
          o[4] = stride;
          in.opcode = op::CooperativeMatrixLoadKHR;
          break;
        }
        case op::CooperativeMatrixStoreNV: {
          // ptr obj stride colmajor [memory] -> ptr obj layout stride [memory]
          if (!use_of_.count(type_of(o[1], in)))
            throw Error(where(in) + ": the stored object is not a cooperative matrix");
          const uint32_t stride = o[2], layout_id = layout_constant(o[3], in);
          o[2] = layout_id;
          o[3] = stride;
          in.opcode = op::CooperativeMatrixStoreKHR;
          break;
        }
        case op::CooperativeMatrixMulAddNV: {
          const uint32_t operands = signedness(type_of(o[2], in), in, kASigned) |
                                    signedness(type_of(o[3], in), in, kBSigned) |
                                    signedness(type_of(o[4], in), in, kCSigned) | signedness(o[0], in, kResultSigned);
          if (operands) o.push_back(operands);
          in.opcode = op::CooperativeMatrixMulAddKHR;
          break;
        }
        case op::CooperativeMatrixLengthNV:
          if (o.size() != 3 || !use_of_.count(o[2]))
            throw Error(where(in) + ": its Type operand is not a cooperative matrix type");
          in.opcode = op::CooperativeMatrixLengthKHR;
          break;
        default:
          break;
      }
    }
    // The new constants, right after the integer type (so before every matrix type that names them).
    std::vector<Instruction> consts;
    for (const auto& [value, id] : added_) consts.push_back(Instruction{op::Constant, {int_type_, id, value}, 0});
    m_.instructions.insert(m_.instructions.begin() + static_cast<std::ptrdiff_t>(int_type_at_) + 1, consts.begin(),
                           consts.end());
  }

  Module m_;
  std::vector<Layout> layouts_;
  std::map<uint32_t, size_t> def_;        // result <id> -> instruction index
  std::map<uint32_t, uint32_t> type_of_;  // value <id> -> its type <id>
  std::vector<uint32_t> nv_types_;
  size_t first_nv_type_ = SIZE_MAX;
  std::set<uint32_t> carriers_;          // matrix types, types containing them, values of those types
  std::map<uint32_t, uint32_t> use_of_;  // NV type -> KHR use
  uint32_t int_type_ = 0;
  size_t int_type_at_ = 0;
  std::map<uint32_t, uint32_t> added_;  // value -> new OpConstant <id>
};

// The output parsed back: well formed, no NV trace, the KHR capability and extension, unique results
// below the bound, the KHR instructions with their operand counts.
void check_output(std::span<const uint32_t> words) {
  const Module m = parse(words);
  bool cap_khr = false, ext_khr = false;
  std::vector<bool> defined(m.bound, false);
  for (const Instruction& in : m.instructions) {
    if (in.opcode >= op::TypeCooperativeMatrixNV && in.opcode <= op::CooperativeMatrixLengthNV)
      throw Error("internal error: " + where(in) + " is left in the output");
    if (in.opcode == op::Capability && in.operands.at(0) == cap::CooperativeMatrixNV)
      throw Error("internal error: the CooperativeMatrixNV capability is left in the output");
    if (in.opcode == op::Capability && in.operands.at(0) == cap::CooperativeMatrixKHR) cap_khr = true;
    if (in.opcode == op::Extension) {
      const std::string name = decode_string(in.operands);
      if (name == kNvExtension) throw Error("internal error: the NV extension is left in the output");
      if (name == kKhrExtension) ext_khr = true;
    }
    const Layout l = layout(in);
    if (in.opcode == op::TypeCooperativeMatrixKHR && in.operands.size() != 6)
      throw Error("internal error: " + where(in) + " has " + std::to_string(in.operands.size()) + " operands");
    if (l.result < 0) continue;
    const uint32_t r = in.operands[static_cast<size_t>(l.result)];
    if (r == 0 || r >= m.bound || defined[r])
      throw Error("internal error: result " + id_name(r) + " is out of bounds or defined twice");
    defined[r] = true;
  }
  if (!cap_khr || !ext_khr) throw Error("internal error: the output lacks the KHR capability or extension");
}

}  // namespace

std::vector<uint32_t> coop_nv_to_khr(std::span<const uint32_t> nv) {
  std::vector<uint32_t> out = Rewriter(nv).run();
  check_output(out);
  return out;
}

}  // namespace trit::spv
