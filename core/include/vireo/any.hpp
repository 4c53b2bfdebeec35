// Declares vireo::Any, a type-erased value that converts to and from text, and AnyMap.
#pragma once

#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <type_traits>
#include <typeinfo>
#include <vector>

#include "vireo/exception.hpp"

namespace vireo {

namespace detail {
/// A type_info's name as C++ spells it ("vireo::log::Level"), never the ABI's mangled form
/// ("N5vireo3log5LevelE"): the last resort of type_name() for a type nobody named.
std::string readable_type_name(const std::type_info& type);
}  // namespace detail

/// A readable name for value types ("int32", "string", "bool", "log level", ...), for error
/// messages. Specialise it next to your own type (properties.hpp does for its enums); any other
/// type gets its demangled C++ name.
template <typename T>
const char* type_name() {
    if constexpr (std::is_same_v<T, bool>)
        return "bool";
    else if constexpr (std::is_same_v<T, int32_t>)
        return "int32";
    else if constexpr (std::is_same_v<T, int64_t>)
        return "int64";
    else if constexpr (std::is_same_v<T, uint32_t>)
        return "uint32";
    else if constexpr (std::is_same_v<T, uint64_t>)
        return "uint64";
    else if constexpr (std::is_same_v<T, float>)
        return "float";
    else if constexpr (std::is_same_v<T, double>)
        return "double";
    else if constexpr (std::is_same_v<T, std::string>)
        return "string";
    else if constexpr (std::is_same_v<T, std::vector<std::string>>)
        return "list of strings";
    else if constexpr (std::is_same_v<T, std::vector<int64_t>>)
        return "list of integers";
    else {
        static const std::string name = detail::readable_type_name(typeid(T));
        return name.c_str();
    }
}

/// How a value of type T is written as text and read back. Specialise for your own types (or
/// give them operator<< and operator>>). Vectors are comma-separated; bool reads
/// true/false/YES/NO/1/0; strings are kept verbatim.
template <typename T, typename = void>
struct TextCodec {
    static std::string to_text(const T& value) {
        std::ostringstream out;
        out << value;
        return out.str();
    }
    static T from_text(const std::string& text) {
        std::istringstream in(text);
        T value{};
        in >> value;
        if (in.fail() || !(in >> std::ws).eof())
            throw_error<InvalidArgument>("cannot read '", text, "' as ", type_name<T>());
        return value;
    }
};

template <>
struct TextCodec<std::string> {
    static std::string to_text(const std::string& v) { return v; }
    static std::string from_text(const std::string& t) { return t; }
};

template <>
struct TextCodec<bool> {
    static std::string to_text(bool v) { return v ? "YES" : "NO"; }
    static bool from_text(const std::string& t);
};

template <typename T>
struct TextCodec<std::vector<T>> {
    static std::string to_text(const std::vector<T>& v) {
        std::string out;
        for (size_t i = 0; i < v.size(); ++i) {
            if (i) out += ',';
            out += TextCodec<T>::to_text(v[i]);
        }
        return out;
    }
    static std::vector<T> from_text(const std::string& t) {
        std::vector<T> out;
        if (t.empty()) return out;
        size_t start = 0;
        while (true) {
            const size_t comma = t.find(',', start);
            std::string item =
                t.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
            const auto b = item.find_first_not_of(' ');
            const auto e = item.find_last_not_of(' ');
            item = b == std::string::npos ? std::string() : item.substr(b, e - b + 1);
            out.push_back(TextCodec<T>::from_text(item));
            if (comma == std::string::npos) break;
            start = comma + 1;
        }
        return out;
    }
};

/// A type-erased, copyable value. Copies share the stored value (it is immutable).
///
///     Any a = 4;                 // holds int
///     a.as<int64_t>();           // 4: numbers convert between arithmetic types (range-checked)
///     a.as<std::string>();       // "4": anything converts to its text
///     Any s = "12";              // holds std::string
///     s.as<uint32_t>();          // 12: text is parsed into the requested type
///
/// as<T>() throws InvalidArgument naming the value and T when no conversion applies. An Any
/// returned by a plugin keeps the plugin's library loaded (the value's type may live there).
class Any {
  public:
    Any() = default;
    template <typename T, typename D = std::decay_t<T>,
              typename = std::enable_if_t<!std::is_same_v<D, Any> &&
                                          !std::is_array_v<std::remove_reference_t<T>> &&
                                          std::is_copy_constructible_v<D>>>
    Any(T&& value) : m_impl(std::make_shared<Impl<D>>(std::forward<T>(value))) {}  // NOLINT
    Any(const char* text) : Any(std::string(text)) {}                              // NOLINT
    Any(const Any&) = default;
    Any(Any&&) noexcept = default;
    ~Any() = default;
    /// Assignments release the old value before the old library reference (a defaulted one
    /// assigns m_so first and could unload a plugin's code before its value is destroyed).
    Any& operator=(const Any& other) {
        m_impl = other.m_impl;
        m_so = other.m_so;
        return *this;
    }
    Any& operator=(Any&& other) noexcept {
        m_impl = std::move(other.m_impl);
        m_so = std::move(other.m_so);
        return *this;
    }

    bool empty() const { return m_impl == nullptr; }
    const std::type_info& type_info() const { return m_impl ? m_impl->type() : typeid(void); }
    template <typename T>
    bool is() const {
        return m_impl && m_impl->type() == typeid(T);
    }

    template <typename T>
    T as() const {
        if (!m_impl) throw_error<InvalidArgument>("cannot read an empty value as ", type_name<T>());
        if (m_impl->type() == typeid(T)) return static_cast<const Impl<T>&>(*m_impl).value;
        if constexpr (std::is_same_v<T, std::string>) {
            return m_impl->to_text();
        } else {
            if constexpr (std::is_arithmetic_v<T> && !std::is_same_v<T, bool>) {
                long double number = 0;
                if (m_impl->as_number(number)) return checked_number<T>(number);
            }
            if constexpr (std::is_enum_v<T>) {
                // A number for an enum is read as its text: the enum's reader decides whether it
                // has a numeric form (log::Level has OpenVINO's) and names the values if not.
                long double number = 0;
                if (m_impl->as_number(number)) return TextCodec<T>::from_text(m_impl->to_text());
            }
            if (m_impl->type() == typeid(std::string))
                return TextCodec<T>::from_text(
                    static_cast<const Impl<std::string>&>(*m_impl).value);
            throw_error<InvalidArgument>("cannot convert value '", m_impl->to_text(), "' to ",
                                         type_name<T>());
        }
    }

    /// The value as text (TextCodec of its type); "" when empty.
    std::string to_string() const { return m_impl ? m_impl->to_text() : std::string(); }
    /// Equal when both hold the same type and value, or their texts are equal.
    bool operator==(const Any& other) const;
    bool operator!=(const Any& other) const { return !(*this == other); }

    void set_shared_object(std::shared_ptr<void> so) { m_so = std::move(so); }

    // A hidden friend, so that it is found only for Any itself and never through an implicit
    // conversion of some other type to Any.
    friend std::ostream& operator<<(std::ostream& out, const Any& any) {
        return out << any.to_string();
    }

  private:
    struct Base {
        virtual ~Base() = default;
        virtual const std::type_info& type() const = 0;
        virtual std::string to_text() const = 0;
        virtual bool as_number(long double& out) const = 0;
    };
    template <typename T>
    struct Impl final : Base {
        template <typename U>
        explicit Impl(U&& v) : value(std::forward<U>(v)) {}
        const std::type_info& type() const override { return typeid(T); }
        std::string to_text() const override { return TextCodec<T>::to_text(value); }
        bool as_number(long double& out) const override {
            if constexpr (std::is_arithmetic_v<T> && !std::is_same_v<T, bool>) {
                out = static_cast<long double>(value);
                return true;
            } else {
                return false;
            }
        }
        T value;
    };
    template <typename T>
    static T checked_number(long double number);

    std::shared_ptr<void> m_so;  // declared first: outlives m_impl
    std::shared_ptr<const Base> m_impl;
};

template <typename T>
T Any::checked_number(long double number) {
    if constexpr (std::is_integral_v<T>) {
        if (number != static_cast<long double>(static_cast<long long>(number)) ||
            number < static_cast<long double>(std::numeric_limits<T>::lowest()) ||
            number > static_cast<long double>(std::numeric_limits<T>::max()))
            throw_error<InvalidArgument>("value ", static_cast<double>(number), " does not fit ",
                                         type_name<T>());
    }
    return static_cast<T>(number);
}

/// Named values: properties, configuration, rt_info.
using AnyMap = std::map<std::string, Any>;

/// An AnyMap as text: "{KEY:VALUE,KEY2:{NESTED:VALUE}}" (values are their own text; a value that
/// holds ',', ':', '{' or '}' is written in braces only if it is itself a map). Reading accepts
/// the same, with optional spaces around items, maps nested at most 16 deep; throws
/// InvalidArgument naming the text.
template <>
struct TextCodec<AnyMap> {
    static std::string to_text(const AnyMap& map);
    static AnyMap from_text(const std::string& text);
};

}  // namespace vireo
