// ITensor and IRemoteTensor for plugin authors: defined in the core (vireo/dev/itensor.hpp).
#pragma once
#include "vireo/dev/itensor.hpp"
