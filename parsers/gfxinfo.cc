#include "parsers/gfxinfo.h"
