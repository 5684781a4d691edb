// SPDX-License-Identifier: GPL-2.0
// efq-weightd: copies each cgroup's io.weight into io.efq.io_weight
// (Documentation/block/efq-weightd.rst).
#include "cli.h"

int main(int argc, char **argv)
{
	return efq::weightd::run(argc, argv);
}
