// Declares the TEST plugin's remote context and remote tensor (device memory simulated by a
// byte vector), enough to exercise RemoteContext and tensor holders.
#pragma once

#include <string>
#include <vector>

#include "vireo/sdk/iremote_context.hpp"
#include "vireo/sdk/itensor.hpp"

namespace vireo::test_plugin {

class RemoteTensor : public sdk::IRemoteTensor {
  public:
    RemoteTensor(element::Type type, const Shape& shape, std::string device_name);
    element::Type get_element_type() const override { return m_type; }
    const Shape& get_shape() const override { return m_shape; }
    void set_shape(const Shape& shape) override;
    const Strides& get_strides() const override { return m_strides; }
    const std::string& get_device_name() const override { return m_device_name; }
    const AnyMap& get_properties() const override { return m_properties; }
    void copy_from_host(const void* src) override;
    void copy_to_host(void* dst) const override;

  private:
    element::Type m_type;
    Shape m_shape;
    Strides m_strides;
    std::string m_device_name;
    AnyMap m_properties;
    std::vector<unsigned char> m_memory;
};

class RemoteContext : public sdk::IRemoteContext {
  public:
    RemoteContext(std::string device_name, AnyMap params);
    const std::string& get_device_name() const override { return m_device_name; }
    const AnyMap& get_property() const override { return m_params; }
    Tensor create_tensor(element::Type type, const Shape& shape, const AnyMap& params) override;

  private:
    std::string m_device_name;
    AnyMap m_params;
};

}  // namespace vireo::test_plugin
