#pragma once
uniform int included_once;
