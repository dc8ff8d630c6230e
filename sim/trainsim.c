/* trainsim.c -- the command line (placeholder until the CLI lands). */
#include <stdio.h>

int main(void)
{
	printf("trainsim %s\n", PACKAGE_VERSION);
	return 0;
}
