#include "parsers/input_kind.h"
