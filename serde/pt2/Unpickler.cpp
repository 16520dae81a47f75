#include "serde/pt2/Unpickler.h"

#include "serde/pt2/Pt2Error.h"

#include <cctype>
#include <cstring>
#include <unordered_map>

namespace ptec::pt2::pickle {

namespace {
using K = Object::Kind;

// Opcode names, for refusals ("refusing pickle opcode 'NEWOBJ'").
const char *opcodeName(uint8_t op) {
  switch (op) {
  case '(': return "MARK";          case '.': return "STOP";
  case '0': return "POP";           case '1': return "POP_MARK";
  case '2': return "DUP";           case 'F': return "FLOAT";
  case 'I': return "INT";           case 'J': return "BININT";
  case 'K': return "BININT1";       case 'L': return "LONG";
  case 'M': return "BININT2";       case 'N': return "NONE";
  case 'P': return "PERSID";        case 'Q': return "BINPERSID";
  case 'R': return "REDUCE";        case 'S': return "STRING";
  case 'T': return "BINSTRING";     case 'U': return "SHORT_BINSTRING";
  case 'V': return "UNICODE";       case 'X': return "BINUNICODE";
  case 'a': return "APPEND";        case 'b': return "BUILD";
  case 'c': return "GLOBAL";        case 'd': return "DICT";
  case '}': return "EMPTY_DICT";    case 'e': return "APPENDS";
  case 'g': return "GET";           case 'h': return "BINGET";
  case 'i': return "INST";          case 'j': return "LONG_BINGET";
  case 'l': return "LIST";          case ']': return "EMPTY_LIST";
  case 'o': return "OBJ";           case 'p': return "PUT";
  case 'q': return "BINPUT";        case 'r': return "LONG_BINPUT";
  case 's': return "SETITEM";       case 't': return "TUPLE";
  case ')': return "EMPTY_TUPLE";   case 'u': return "SETITEMS";
  case 'G': return "BINFLOAT";      case 'B': return "BINBYTES";
  case 'C': return "SHORT_BINBYTES";
  case 0x80: return "PROTO";        case 0x81: return "NEWOBJ";
  case 0x82: return "EXT1";         case 0x83: return "EXT2";
  case 0x84: return "EXT4";         case 0x85: return "TUPLE1";
  case 0x86: return "TUPLE2";       case 0x87: return "TUPLE3";
  case 0x88: return "NEWTRUE";      case 0x89: return "NEWFALSE";
  case 0x8a: return "LONG1";        case 0x8b: return "LONG4";
  case 0x8c: return "SHORT_BINUNICODE"; case 0x8d: return "BINUNICODE8";
  case 0x8e: return "BINBYTES8";    case 0x8f: return "EMPTY_SET";
  case 0x90: return "ADDITEMS";     case 0x91: return "FROZENSET";
  case 0x92: return "NEWOBJ_EX";    case 0x93: return "STACK_GLOBAL";
  case 0x94: return "MEMOIZE";      case 0x95: return "FRAME";
  case 0x96: return "BYTEARRAY8";   case 0x97: return "NEXT_BUFFER";
  case 0x98: return "READONLY_BUFFER";
  default: return nullptr;
  }
}

struct StorageClass {
  const char *name;
  DType dtype;
};
constexpr StorageClass kStorageClasses[] = {
    {"FloatStorage", DType::Float},       {"DoubleStorage", DType::Double},
    {"HalfStorage", DType::Half},         {"BFloat16Storage", DType::BFloat16},
    {"LongStorage", DType::Long},         {"IntStorage", DType::Int},
    {"ShortStorage", DType::Short},       {"CharStorage", DType::Char},
    {"ByteStorage", DType::Byte},         {"BoolStorage", DType::Bool},
    {"ComplexFloatStorage", DType::ComplexFloat},
    {"ComplexDoubleStorage", DType::ComplexDouble},
};

std::string hex(uint8_t op) {
  const char *digits = "0123456789abcdef";
  return std::string("0x") + digits[op >> 4] + digits[op & 15];
}

// The pickle bytes with bounds-checked reads.
class Reader {
public:
  Reader(const uint8_t *data, size_t size) : data_(data), size_(size) {}
  bool atEnd() const { return pos_ >= size_; }
  size_t pos() const { return pos_; }
  const uint8_t *take(uint64_t n, const char *what) {
    if (n > size_ - pos_)
      fail(std::string("pickle is truncated (") + what + " needs " + std::to_string(n) +
           " bytes at offset " + std::to_string(pos_) + ")");
    const uint8_t *p = data_ + pos_;
    pos_ += static_cast<size_t>(n);
    return p;
  }
  uint64_t le(unsigned n, const char *what) {
    const uint8_t *p = take(n, what);
    uint64_t v = 0;
    for (unsigned k = 0; k < n; ++k)
      v |= uint64_t(p[k]) << (8 * k);
    return v;
  }
  std::string line(const char *what) {
    size_t start = pos_;
    while (pos_ < size_ && data_[pos_] != '\n')
      ++pos_;
    if (pos_ >= size_)
      fail(std::string("pickle is truncated (unterminated ") + what + ")");
    return std::string(reinterpret_cast<const char *>(data_ + start), pos_++ - start);
  }

private:
  const uint8_t *data_;
  size_t size_;
  size_t pos_ = 0;
};

int64_t signedLittleEndian(const uint8_t *p, uint64_t n) {
  if (n > 8)
    fail("pickle integer of " + std::to_string(n) + " bytes does not fit in 64 bits");
  if (n == 0)
    return 0;
  uint64_t v = 0;
  for (uint64_t k = 0; k < n; ++k)
    v |= uint64_t(p[k]) << (8 * k);
  if (n < 8 && (p[n - 1] & 0x80))
    v |= ~uint64_t(0) << (8 * n);  // sign-extend
  return static_cast<int64_t>(v);
}
}  // namespace

const char *kindName(Object::Kind kind) {
  switch (kind) {
  case K::None: return "None";
  case K::Bool: return "bool";
  case K::Int: return "int";
  case K::Float: return "float";
  case K::String: return "str";
  case K::Bytes: return "bytes";
  case K::Tuple: return "tuple";
  case K::List: return "list";
  case K::Dict: return "dict";
  case K::Global: return "global";
  case K::Storage: return "storage";
  case K::Tensor: return "tensor";
  }
  return "object";
}

Object *Unpickler::make(Object::Kind kind) {
  arena_.push_back(std::make_unique<Object>());
  arena_.back()->kind = kind;
  return arena_.back().get();
}

const Object *Unpickler::load(const uint8_t *data, size_t size) {
  Reader in(data, size);
  std::vector<Object *> stack;
  std::vector<size_t> marks;
  std::unordered_map<uint64_t, Object *> memo;

  auto push = [&](Object *o) {
    if (stack.size() >= limits_.maxStack)
      fail("pickle stack exceeds " + std::to_string(limits_.maxStack) + " items");
    stack.push_back(o);
  };
  auto pop = [&](const char *op) {
    if (stack.empty() || (!marks.empty() && stack.size() <= marks.back()))
      fail(std::string("pickle stack underflow at ") + op);
    Object *o = stack.back();
    stack.pop_back();
    return o;
  };
  auto top = [&](const char *op) {
    if (stack.empty() || (!marks.empty() && stack.size() <= marks.back()))
      fail(std::string("pickle stack underflow at ") + op);
    return stack.back();
  };
  auto popMark = [&](const char *op) {
    if (marks.empty())
      fail(std::string("pickle ") + op + " without MARK");
    size_t m = marks.back();
    marks.pop_back();
    std::vector<Object *> items(stack.begin() + m, stack.end());
    stack.resize(m);
    return items;
  };
  auto nest = [&](Object *container, const Object *child) {
    if (child->depth + 1 > container->depth)
      container->depth = child->depth + 1;
    if (container->depth > limits_.maxDepth)
      fail("pickle nesting deeper than " + std::to_string(limits_.maxDepth) + " levels");
  };
  auto makeTuple = [&](std::vector<Object *> items) {
    Object *t = make(K::Tuple);
    for (Object *x : items)
      nest(t, x);
    t->items = std::move(items);
    return t;
  };
  auto put = [&](uint64_t index) {
    Object *o = top("PUT");
    auto it = memo.find(index);
    if (it == memo.end() && memo.size() >= limits_.maxMemo)
      fail("pickle memo exceeds " + std::to_string(limits_.maxMemo) + " entries");
    memo[index] = o;
  };
  auto get = [&](uint64_t index) {
    auto it = memo.find(index);
    if (it == memo.end())
      fail("pickle memo index " + std::to_string(index) + " was never set");
    push(it->second);
  };
  auto makeString = [&](K kind, uint64_t n, const char *what) {
    const uint8_t *p = in.take(n, what);
    Object *o = make(kind);
    o->s.assign(reinterpret_cast<const char *>(p), static_cast<size_t>(n));
    push(o);
  };
  auto global = [&](const std::string &module, const std::string &name) {
    Object *g = make(K::Global);
    g->s = module + "." + name;
    if (module == "collections" && name == "OrderedDict") {
      g->global = Object::GlobalKind::OrderedDict;
    } else if (module == "torch._utils" && name == "_rebuild_tensor_v2") {
      g->global = Object::GlobalKind::RebuildTensorV2;
    } else if (module == "torch._utils" && name == "_rebuild_parameter") {
      g->global = Object::GlobalKind::RebuildParameter;
    } else {
      bool found = false;
      if (module == "torch")
        for (const StorageClass &c : kStorageClasses)
          if (name == c.name) {
            g->global = Object::GlobalKind::StorageType;
            g->dtype = c.dtype;
            found = true;
          }
      if (!found)
        fail("refusing pickle global '" + g->s +
             "'; only plain tensors in a (ordered) dict can be loaded");
    }
    push(g);
  };

  for (;;) {
    if (in.atEnd())
      fail("pickle ends without STOP");
    size_t opPos = in.pos();
    uint8_t op = *in.take(1, "opcode");
    switch (op) {
    case 0x80: {  // PROTO
      uint8_t proto = *in.take(1, "PROTO");
      if (proto > 5)
        fail("pickle protocol " + std::to_string(proto) + " is unsupported");
      break;
    }
    case 0x95:  // FRAME: framing is only a read-ahead hint
      in.take(8, "FRAME");
      break;
    case '.': {  // STOP
      if (stack.size() != 1 || !marks.empty())
        fail("pickle STOP with " + std::to_string(stack.size()) + " values on the stack");
      return stack.back();
    }
    case '(':
      if (marks.size() >= limits_.maxStack)
        fail("pickle has too many MARKs");
      marks.push_back(stack.size());
      break;
    case '0':
      pop("POP");
      break;
    case '1':
      popMark("POP_MARK");
      break;
    case '2':
      push(top("DUP"));
      break;
    case 'N':
      push(make(K::None));
      break;
    case 0x88:
    case 0x89: {
      Object *o = make(K::Bool);
      o->b = op == 0x88;
      push(o);
      break;
    }
    case 'J': {
      Object *o = make(K::Int);
      o->i = static_cast<int32_t>(static_cast<uint32_t>(in.le(4, "BININT")));
      push(o);
      break;
    }
    case 'K':
    case 'M': {
      Object *o = make(K::Int);
      o->i = static_cast<int64_t>(in.le(op == 'K' ? 1 : 2, opcodeName(op)));
      push(o);
      break;
    }
    case 0x8a:
    case 0x8b: {  // LONG1 / LONG4
      uint64_t n = in.le(op == 0x8a ? 1 : 4, opcodeName(op));
      const uint8_t *p = in.take(n, opcodeName(op));
      Object *o = make(K::Int);
      o->i = signedLittleEndian(p, n);
      push(o);
      break;
    }
    case 'G': {  // BINFLOAT: big-endian IEEE double
      const uint8_t *p = in.take(8, "BINFLOAT");
      uint64_t bits = 0;
      for (int k = 0; k < 8; ++k)
        bits = (bits << 8) | p[k];
      Object *o = make(K::Float);
      std::memcpy(&o->f, &bits, 8);
      push(o);
      break;
    }
    case 'X': case 0x8c: case 0x8d: case 'T': case 'U': // length-prefixed text
    case 'B': case 'C': case 0x8e: {                     // length-prefixed bytes
      const bool bytes = op == 'B' || op == 'C' || op == 0x8e;
      // The length takes 1 byte in the SHORT_ forms, 8 in the *8 forms, else 4.
      const bool short1 = op == 0x8c || op == 'U' || op == 'C';
      const int width = short1 ? 1 : (op == 0x8d || op == 0x8e) ? 8 : 4;
      makeString(bytes ? K::Bytes : K::String, in.le(width, opcodeName(op)), opcodeName(op));
      break;
    }
    case ')':
      push(make(K::Tuple));
      break;
    case 't':
      push(makeTuple(popMark("TUPLE")));
      break;
    case 0x85:
    case 0x86:
    case 0x87: {
      size_t n = op - 0x84;
      std::vector<Object *> items(n);
      for (size_t k = n; k-- > 0;)
        items[k] = pop("TUPLE1/2/3");
      push(makeTuple(std::move(items)));
      break;
    }
    case ']':
      push(make(K::List));
      break;
    case 'l': {
      Object *l = make(K::List);
      for (Object *x : popMark("LIST")) {
        nest(l, x);
        l->items.push_back(x);
      }
      push(l);
      break;
    }
    case '}':
      push(make(K::Dict));
      break;
    case 'd':
    case 'u':
    case 's': {
      std::vector<Object *> items;
      if (op == 's') {
        Object *v = pop("SETITEM");
        Object *k = pop("SETITEM");
        items = {k, v};
      } else {
        items = popMark(opcodeName(op));
      }
      if (items.size() % 2)
        fail(std::string("pickle ") + opcodeName(op) + " with an odd number of items");
      Object *d = op == 'd' ? make(K::Dict) : top(opcodeName(op));
      if (d->kind != K::Dict)
        fail(std::string("pickle ") + opcodeName(op) + " on a " + kindName(d->kind));
      for (Object *x : items) {
        nest(d, x);
        d->items.push_back(x);
      }
      if (op == 'd')
        push(d);
      break;
    }
    case 'a':
    case 'e': {
      std::vector<Object *> items;
      if (op == 'a')
        items = {pop("APPEND")};
      else
        items = popMark("APPENDS");
      Object *l = top(opcodeName(op));
      if (l->kind != K::List)
        fail(std::string("pickle ") + opcodeName(op) + " on a " + kindName(l->kind));
      for (Object *x : items) {
        nest(l, x);
        l->items.push_back(x);
      }
      break;
    }
    // The memo: PUT forms remember the top of the stack, GET forms push it again.
    case 'q': put(in.le(1, "BINPUT")); break;
    case 'r': put(in.le(4, "LONG_BINPUT")); break;
    case 0x94: put(memo.size()); break;
    case 'h': get(in.le(1, "BINGET")); break;
    case 'j': get(in.le(4, "LONG_BINGET")); break;
    case 'c': {
      std::string module = in.line("GLOBAL module");
      std::string name = in.line("GLOBAL name");
      global(module, name);
      break;
    }
    case 0x93: {  // STACK_GLOBAL
      Object *name = pop("STACK_GLOBAL");
      Object *module = pop("STACK_GLOBAL");
      if (name->kind != K::String || module->kind != K::String)
        fail("pickle STACK_GLOBAL needs two strings");
      global(module->s, name->s);
      break;
    }
    case 'Q': {  // BINPERSID
      Object *pid = pop("BINPERSID");
      const auto &t = pid->items;
      if (pid->kind != K::Tuple || t.size() != 5 || t[0]->kind != K::String ||
          t[0]->s != "storage")
        fail("pickle persistent id is not a ('storage', type, key, location, numel) tuple");
      if (t[1]->kind != K::Global || t[1]->global != Object::GlobalKind::StorageType)
        fail("pickle persistent id names a storage type that is not a typed torch storage");
      if (t[2]->kind != K::String || t[3]->kind != K::String || t[4]->kind != K::Int)
        fail("pickle persistent id has malformed key, location or numel");
      for (char c : t[2]->s)
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_')
          fail("pickle storage key '" + t[2]->s + "' has unexpected characters");
      if (t[2]->s.empty() || t[4]->i < 0)
        fail("pickle storage has an empty key or a negative size");
      Object *s = make(K::Storage);
      s->dtype = t[1]->dtype;
      s->key = t[2]->s;
      s->location = t[3]->s;
      s->numel = t[4]->i;
      push(s);
      break;
    }
    case 'R': {  // REDUCE: interpreted, never called
      Object *args = pop("REDUCE");
      Object *fn = pop("REDUCE");
      if (fn->kind != K::Global)
        fail(std::string("pickle REDUCE calls a ") + kindName(fn->kind));
      if (args->kind != K::Tuple)
        fail("pickle REDUCE arguments are not a tuple");
      const auto &a = args->items;
      switch (fn->global) {
      case Object::GlobalKind::OrderedDict: {
        if (!a.empty())
          fail("pickle builds an OrderedDict from arguments; only OrderedDict() is allowed");
        push(make(K::Dict));
        break;
      }
      case Object::GlobalKind::RebuildTensorV2: {
        if (a.size() != 6 && a.size() != 7)
          fail("pickle calls _rebuild_tensor_v2 with " + std::to_string(a.size()) + " arguments");
        if (a[0]->kind != K::Storage || a[1]->kind != K::Int || a[2]->kind != K::Tuple ||
            a[3]->kind != K::Tuple || a[4]->kind != K::Bool)
          fail("pickle calls _rebuild_tensor_v2 with malformed arguments");
        if (a[5]->kind != K::Dict || !a[5]->items.empty())
          fail("pickled tensor has backward hooks; unsupported");
        Object *t = make(K::Tensor);
        t->storage = a[0];
        t->dtype = a[0]->dtype;
        t->storageOffset = a[1]->i;
        for (const Object *x : a[2]->items) {
          if (x->kind != K::Int)
            fail("pickled tensor size is not an int");
          t->sizes.push_back(x->i);
        }
        for (const Object *x : a[3]->items) {
          if (x->kind != K::Int)
            fail("pickled tensor stride is not an int");
          t->strides.push_back(x->i);
        }
        t->requiresGrad = a[4]->b;
        push(t);
        break;
      }
      case Object::GlobalKind::RebuildParameter: {
        if (a.size() != 3 || a[0]->kind != K::Tensor || a[1]->kind != K::Bool)
          fail("pickle calls _rebuild_parameter with malformed arguments");
        if (a[2]->kind != K::Dict || !a[2]->items.empty())
          fail("pickled parameter has backward hooks; unsupported");
        Object *t = make(K::Tensor);
        *t = *a[0];
        t->isParam = true;
        t->requiresGrad = a[1]->b;
        push(t);
        break;
      }
      case Object::GlobalKind::StorageType:
        fail("refusing to call pickle global '" + fn->s + "'; storages come only from persistent ids");
      }
      break;
    }
    case 'b': {  // BUILD: only attribute dicts on dicts (a state dict's _metadata)
      Object *state = pop("BUILD");
      Object *target = top("BUILD");
      if (target->kind != K::Dict || (state->kind != K::Dict && state->kind != K::None))
        fail(std::string("refusing pickle BUILD of a ") + kindName(state->kind) + " on a " +
             kindName(target->kind));
      break;
    }
    default: {
      const char *name = opcodeName(op);
      if (name)
        fail(std::string("refusing pickle opcode '") + name + "' at offset " +
             std::to_string(opPos));
      fail("unknown pickle opcode " + hex(op) + " at offset " + std::to_string(opPos));
    }
    }
  }
}

}  // namespace ptec::pt2::pickle
