# Rank-to-host files of Taffet's 64×72 stencil (§4.2.3) on a fat tree
# whose leaf switch l holds the hosts H(l·P) … H(l·P+P−1) (fattree3 and
# kary name them so): one W×H tile of the grid per leaf switch, tiles in
# row-major order, and the ranks inside a tile on the leaf's P = W·H hosts
# in one of three orders:
#
#	row       slot = i + W·j                       (orcs map --strategy tile)
#	col       slot = j + H·i                       (column major)
#	scramble  slot = (13·(i + W·j) + 7·t) mod P    (a different bijection per
#	                                                 tile t; 13 is odd, P a power of 2)
#	skew      slot = ((i + k·j) mod W) + W·j       (row j shifted by k·j, -v k=K,
#	                                                 default 1 = orcs map --strategy tile
#	                                                 on Tapered; k = 2 for 8×4 tiles is
#	                                                 ((i + 2j) mod 8) + 8j)
#
# for the rank at (i, j) inside its tile. Output: "RANK HOST" lines, which
# samplingsim --mapping reads. Usage:
#
#	awk -v x=64 -v y=72 -v w=8 -v h=4 -v order=row -f bench/taffet-tiles.awk > map.txt
BEGIN {
	if (x == "") x = 64
	if (y == "") y = 72
	if (w == "") w = 8
	if (h == "") h = 4
	if (order == "") order = "row"
	if (k == "") k = 1
	if (x % w || y % h) { print "tile " w "x" h " does not divide the grid " x "x" y > "/dev/stderr"; exit 2 }
	if (order != "row" && order != "col" && order != "scramble" && order != "skew") { print "order " order ": want row, col, scramble or skew" > "/dev/stderr"; exit 2 }
	P = w * h
	print "# rank host: " x "x" y " stencil, " w "x" h " tiles, " order (order == "skew" ? " k=" k : "") " order inside a tile"
	for (r = 0; r < x * y; r++) {
		gx = r % x; gy = int(r / x)
		t = int(gx / w) + (x / w) * int(gy / h)
		i = gx % w; j = gy % h
		if (order == "row") s = i + w * j
		else if (order == "col") s = j + h * i
		else if (order == "skew") s = (i + k * j) % w + w * j
		else s = (13 * (i + w * j) + 7 * t) % P
		print r, "H" (t * P + s)
	}
}
