#include "runtime/kernels/portable/Kernels.h"
