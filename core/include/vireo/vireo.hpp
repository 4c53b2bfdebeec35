// The whole public API of Vireo in one include: Core, Model, CompiledModel, InferRequest,
// tensors, properties and errors.
#pragma once

#include "vireo/any.hpp"
#include "vireo/compiled_model.hpp"
#include "vireo/core.hpp"
#include "vireo/element_type.hpp"
#include "vireo/exception.hpp"
#include "vireo/float16.hpp"
#include "vireo/infer_request.hpp"
#include "vireo/log.hpp"
#include "vireo/model.hpp"
#include "vireo/node.hpp"
#include "vireo/op_registry.hpp"
#include "vireo/ops.hpp"
#include "vireo/partial_shape.hpp"
#include "vireo/profiling_info.hpp"
#include "vireo/properties.hpp"
#include "vireo/remote_context.hpp"
#include "vireo/shape.hpp"
#include "vireo/tensor.hpp"
#include "vireo/variable_state.hpp"
#include "vireo/version.hpp"
