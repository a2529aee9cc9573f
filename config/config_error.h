#pragma once
#include "emutrace/config_error.h"
