package types_test

import (
	"math"
	"testing"

	"github.com/cockroachdb/apd/v3"
	"github.com/pgfed/pgfed/types"
)

// num parses a numeric datum, keeping the written scale ("1.50" has
// exponent -2) so that the tests also show that scale does not matter.
func num(s string) *apd.Decimal {
	d, _, err := apd.NewFromString(s)
	if err != nil {
		panic(err)
	}
	return d
}

// pgHashCases were produced by PostgreSQL 15.18 (x86_64, C collation):
// hashint2extended, hashint4extended, hashint8extended, hashfloat4extended,
// hashfloat8extended, hash_numeric_extended, hashtextextended,
// hashbpcharextended, hashcharextended (bool's opclass function),
// timestamp_hash_extended, and hashint4extended over DateADT for dates,
// each with seeds 0, HASH_PARTITION_SEED, -1 and 42. Seeds and results are
// the SQL bigints, i.e. the uint64s read as signed.
var pgHashCases = []struct {
	t    types.T
	d    any
	seed int64
	want int64
}{
	{types.Int2T, int64(-32768), 0, 8455483389771436374},
	{types.Int2T, int64(-32768), 8816678312871386365, 5885242512097991578},
	{types.Int2T, int64(-32768), -1, 416116303756410585},
	{types.Int2T, int64(-32768), 42, 7645069939852523781},
	{types.Int2T, int64(-1), 0, -1888257769727981238},
	{types.Int2T, int64(-1), 8816678312871386365, -5017072347659237694},
	{types.Int2T, int64(-1), -1, 6481520839006961279},
	{types.Int2T, int64(-1), 42, -2218543911767281624},
	{types.Int2T, int64(0), 0, 4154612158245552303},
	{types.Int2T, int64(0), 8816678312871386365, -4403592609991167795},
	{types.Int2T, int64(0), -1, -4140905993450701875},
	{types.Int2T, int64(0), 42, -8162688053457160230},
	{types.Int2T, int64(1), 0, -3670598878359251130},
	{types.Int2T, int64(1), 8816678312871386365, 5968994663651403477},
	{types.Int2T, int64(1), -1, 1505930170527472848},
	{types.Int2T, int64(1), 42, 2207685931686633351},
	{types.Int2T, int64(2), 0, 3647684041653542134},
	{types.Int2T, int64(2), 8816678312871386365, -6784076462669891433},
	{types.Int2T, int64(2), -1, -9179477051440630479},
	{types.Int2T, int64(2), 42, 403280637362415369},
	{types.Int2T, int64(7), 0, -3288951424994980865},
	{types.Int2T, int64(7), 8816678312871386365, 1708571371176205364},
	{types.Int2T, int64(7), -1, 5874088688735560945},
	{types.Int2T, int64(7), 42, 4562426904179449552},
	{types.Int2T, int64(255), 0, 6372911805303557281},
	{types.Int2T, int64(255), 8816678312871386365, 2555968867797403719},
	{types.Int2T, int64(255), -1, -8007280045177250525},
	{types.Int2T, int64(255), 42, 3281733168409865378},
	{types.Int2T, int64(12345), 0, -4060231184274664867},
	{types.Int2T, int64(12345), 8816678312871386365, 3476363059597467753},
	{types.Int2T, int64(12345), -1, 6501803301597581217},
	{types.Int2T, int64(12345), 42, -1975781417327179293},
	{types.Int2T, int64(32767), 0, 1790040721271588170},
	{types.Int2T, int64(32767), 8816678312871386365, -6436696229286267413},
	{types.Int2T, int64(32767), -1, -855553033755551443},
	{types.Int2T, int64(32767), 42, -3005523123271665225},
	{types.Int4T, int64(-2147483648), 0, 1977219185673256887},
	{types.Int4T, int64(-2147483648), 8816678312871386365, 4938542303000433043},
	{types.Int4T, int64(-2147483648), -1, 6110074166949006181},
	{types.Int4T, int64(-2147483648), 42, 2517197663604715469},
	{types.Int4T, int64(-123456), 0, -5064900185866108385},
	{types.Int4T, int64(-123456), 8816678312871386365, -2367713253115567299},
	{types.Int4T, int64(-123456), -1, -7316787422211548421},
	{types.Int4T, int64(-123456), 42, 6920524639739178892},
	{types.Int4T, int64(-42), 0, 8809670066178192187},
	{types.Int4T, int64(-42), 8816678312871386365, 6660635123915733087},
	{types.Int4T, int64(-42), -1, 8355049244265804908},
	{types.Int4T, int64(-42), 42, -6006881497098830780},
	{types.Int4T, int64(-1), 0, -1888257769727981238},
	{types.Int4T, int64(-1), 8816678312871386365, -5017072347659237694},
	{types.Int4T, int64(-1), -1, 6481520839006961279},
	{types.Int4T, int64(-1), 42, -2218543911767281624},
	{types.Int4T, int64(0), 0, 4154612158245552303},
	{types.Int4T, int64(0), 8816678312871386365, -4403592609991167795},
	{types.Int4T, int64(0), -1, -4140905993450701875},
	{types.Int4T, int64(0), 42, -8162688053457160230},
	{types.Int4T, int64(1), 0, -3670598878359251130},
	{types.Int4T, int64(1), 8816678312871386365, 5968994663651403477},
	{types.Int4T, int64(1), -1, 1505930170527472848},
	{types.Int4T, int64(1), 42, 2207685931686633351},
	{types.Int4T, int64(2), 0, 3647684041653542134},
	{types.Int4T, int64(2), 8816678312871386365, -6784076462669891433},
	{types.Int4T, int64(2), -1, -9179477051440630479},
	{types.Int4T, int64(2), 42, 403280637362415369},
	{types.Int4T, int64(3), 0, -6566953864026435689},
	{types.Int4T, int64(3), 8816678312871386365, -6526785837914879018},
	{types.Int4T, int64(3), -1, -1500035346483545630},
	{types.Int4T, int64(3), 42, -3891836156565055914},
	{types.Int4T, int64(42), 0, 8010225493015854792},
	{types.Int4T, int64(42), 8816678312871386365, 7363975540656877951},
	{types.Int4T, int64(42), -1, -6198169983862266934},
	{types.Int4T, int64(42), 42, 826591455424871831},
	{types.Int4T, int64(100), 0, -4553584787365626411},
	{types.Int4T, int64(100), 8816678312871386365, -6862593215598433930},
	{types.Int4T, int64(100), -1, 8725330645607389784},
	{types.Int4T, int64(100), 42, -8381238203314846747},
	{types.Int4T, int64(1000), 0, 475869958805627156},
	{types.Int4T, int64(1000), 8816678312871386365, 3814039551646223601},
	{types.Int4T, int64(1000), -1, -2649005968597010485},
	{types.Int4T, int64(1000), 42, -6719500809693127622},
	{types.Int4T, int64(65535), 0, 3873349985352926501},
	{types.Int4T, int64(65535), 8816678312871386365, 1600251357838402219},
	{types.Int4T, int64(65535), -1, -16900023533219263},
	{types.Int4T, int64(65535), 42, 7267548643323813664},
	{types.Int4T, int64(65536), 0, 1416966524809877208},
	{types.Int4T, int64(65536), 8816678312871386365, -6572490507615227487},
	{types.Int4T, int64(65536), -1, -2428874980302342214},
	{types.Int4T, int64(65536), 42, -1844244465695119027},
	{types.Int4T, int64(123456), 0, -8204554688353752142},
	{types.Int4T, int64(123456), 8816678312871386365, 7518462043501142587},
	{types.Int4T, int64(123456), -1, -5434557241253657031},
	{types.Int4T, int64(123456), 42, -4967232542181069775},
	{types.Int4T, int64(2147483647), 0, -9109110466470504941},
	{types.Int4T, int64(2147483647), 8816678312871386365, -6050265599104649060},
	{types.Int4T, int64(2147483647), -1, 8384907054876656385},
	{types.Int4T, int64(2147483647), 42, -4216469540329842178},
	{types.Int8T, int64(-9223372036854775808), 0, -9109110466470504941},
	{types.Int8T, int64(-9223372036854775808), 8816678312871386365, -6050265599104649060},
	{types.Int8T, int64(-9223372036854775808), -1, 8384907054876656385},
	{types.Int8T, int64(-9223372036854775808), 42, -4216469540329842178},
	{types.Int8T, int64(-1234567890123), 0, -4233410618833895210},
	{types.Int8T, int64(-1234567890123), 8816678312871386365, 5643214861867138814},
	{types.Int8T, int64(-1234567890123), -1, 6903608783228126722},
	{types.Int8T, int64(-1234567890123), 42, -4043614395248317293},
	{types.Int8T, int64(-4294967296), 0, 4154612158245552303},
	{types.Int8T, int64(-4294967296), 8816678312871386365, -4403592609991167795},
	{types.Int8T, int64(-4294967296), -1, -4140905993450701875},
	{types.Int8T, int64(-4294967296), 42, -8162688053457160230},
	{types.Int8T, int64(-2147483649), 0, -9109110466470504941},
	{types.Int8T, int64(-2147483649), 8816678312871386365, -6050265599104649060},
	{types.Int8T, int64(-2147483649), -1, 8384907054876656385},
	{types.Int8T, int64(-2147483649), 42, -4216469540329842178},
	{types.Int8T, int64(-2147483648), 0, 1977219185673256887},
	{types.Int8T, int64(-2147483648), 8816678312871386365, 4938542303000433043},
	{types.Int8T, int64(-2147483648), -1, 6110074166949006181},
	{types.Int8T, int64(-2147483648), 42, 2517197663604715469},
	{types.Int8T, int64(-1), 0, -1888257769727981238},
	{types.Int8T, int64(-1), 8816678312871386365, -5017072347659237694},
	{types.Int8T, int64(-1), -1, 6481520839006961279},
	{types.Int8T, int64(-1), 42, -2218543911767281624},
	{types.Int8T, int64(0), 0, 4154612158245552303},
	{types.Int8T, int64(0), 8816678312871386365, -4403592609991167795},
	{types.Int8T, int64(0), -1, -4140905993450701875},
	{types.Int8T, int64(0), 42, -8162688053457160230},
	{types.Int8T, int64(1), 0, -3670598878359251130},
	{types.Int8T, int64(1), 8816678312871386365, 5968994663651403477},
	{types.Int8T, int64(1), -1, 1505930170527472848},
	{types.Int8T, int64(1), 42, 2207685931686633351},
	{types.Int8T, int64(42), 0, 8010225493015854792},
	{types.Int8T, int64(42), 8816678312871386365, 7363975540656877951},
	{types.Int8T, int64(42), -1, -6198169983862266934},
	{types.Int8T, int64(42), 42, 826591455424871831},
	{types.Int8T, int64(2147483647), 0, -9109110466470504941},
	{types.Int8T, int64(2147483647), 8816678312871386365, -6050265599104649060},
	{types.Int8T, int64(2147483647), -1, 8384907054876656385},
	{types.Int8T, int64(2147483647), 42, -4216469540329842178},
	{types.Int8T, int64(2147483648), 0, 1977219185673256887},
	{types.Int8T, int64(2147483648), 8816678312871386365, 4938542303000433043},
	{types.Int8T, int64(2147483648), -1, 6110074166949006181},
	{types.Int8T, int64(2147483648), 42, 2517197663604715469},
	{types.Int8T, int64(4294967295), 0, -1888257769727981238},
	{types.Int8T, int64(4294967295), 8816678312871386365, -5017072347659237694},
	{types.Int8T, int64(4294967295), -1, 6481520839006961279},
	{types.Int8T, int64(4294967295), 42, -2218543911767281624},
	{types.Int8T, int64(4294967296), 0, -3670598878359251130},
	{types.Int8T, int64(4294967296), 8816678312871386365, 5968994663651403477},
	{types.Int8T, int64(4294967296), -1, 1505930170527472848},
	{types.Int8T, int64(4294967296), 42, 2207685931686633351},
	{types.Int8T, int64(1234567890123), 0, -6236938892533063859},
	{types.Int8T, int64(1234567890123), 8816678312871386365, 4234184308168508908},
	{types.Int8T, int64(1234567890123), -1, -2419251567853602719},
	{types.Int8T, int64(1234567890123), 42, 1954401616273969361},
	{types.Int8T, int64(9223372036854775807), 0, 1977219185673256887},
	{types.Int8T, int64(9223372036854775807), 8816678312871386365, 4938542303000433043},
	{types.Int8T, int64(9223372036854775807), -1, 6110074166949006181},
	{types.Int8T, int64(9223372036854775807), 42, 2517197663604715469},
	{types.Float8T, math.Float64frombits(0x0000000000000000), 0, 0},                                       // 0
	{types.Float8T, math.Float64frombits(0x0000000000000000), 8816678312871386365, 8816678312871386365},   // 0
	{types.Float8T, math.Float64frombits(0x0000000000000000), -1, -1},                                     // 0
	{types.Float8T, math.Float64frombits(0x0000000000000000), 42, 42},                                     // 0
	{types.Float8T, math.Float64frombits(0x8000000000000000), 0, 0},                                       // -0
	{types.Float8T, math.Float64frombits(0x8000000000000000), 8816678312871386365, 8816678312871386365},   // -0
	{types.Float8T, math.Float64frombits(0x8000000000000000), -1, -1},                                     // -0
	{types.Float8T, math.Float64frombits(0x8000000000000000), 42, 42},                                     // -0
	{types.Float8T, math.Float64frombits(0x3ff0000000000000), 0, 4033440226552636220},                     // 1
	{types.Float8T, math.Float64frombits(0x3ff0000000000000), 8816678312871386365, 3988910132942752730},   // 1
	{types.Float8T, math.Float64frombits(0x3ff0000000000000), -1, 2963906028543945686},                    // 1
	{types.Float8T, math.Float64frombits(0x3ff0000000000000), 42, 2768542458102369876},                    // 1
	{types.Float8T, math.Float64frombits(0xbff0000000000000), 0, 7568378172490282248},                     // -1
	{types.Float8T, math.Float64frombits(0xbff0000000000000), 8816678312871386365, 7565654817107693635},   // -1
	{types.Float8T, math.Float64frombits(0xbff0000000000000), -1, -8963245616636741022},                   // -1
	{types.Float8T, math.Float64frombits(0xbff0000000000000), 42, 1744860738333074681},                    // -1
	{types.Float8T, math.Float64frombits(0x3fb999999999999a), 0, -4179333574236083663},                    // 0.1
	{types.Float8T, math.Float64frombits(0x3fb999999999999a), 8816678312871386365, 8245503238132018451},   // 0.1
	{types.Float8T, math.Float64frombits(0x3fb999999999999a), -1, 497474359275273223},                     // 0.1
	{types.Float8T, math.Float64frombits(0x3fb999999999999a), 42, 6597772057922087147},                    // 0.1
	{types.Float8T, math.Float64frombits(0x3ff8000000000000), 0, 6158159405676898674},                     // 1.5
	{types.Float8T, math.Float64frombits(0x3ff8000000000000), 8816678312871386365, -2826383321045882978},  // 1.5
	{types.Float8T, math.Float64frombits(0x3ff8000000000000), -1, -8408947781555335340},                   // 1.5
	{types.Float8T, math.Float64frombits(0x3ff8000000000000), 42, -5832320990282095783},                   // 1.5
	{types.Float8T, math.Float64frombits(0xc006000000000000), 0, -2400442585115846952},                    // -2.75
	{types.Float8T, math.Float64frombits(0xc006000000000000), 8816678312871386365, -1730993571183736193},  // -2.75
	{types.Float8T, math.Float64frombits(0xc006000000000000), -1, 390855929524401102},                     // -2.75
	{types.Float8T, math.Float64frombits(0xc006000000000000), 42, -1189675509091614439},                   // -2.75
	{types.Float8T, math.Float64frombits(0x400921fb54442d18), 0, -1864703709119207706},                    // 3.141592653589793
	{types.Float8T, math.Float64frombits(0x400921fb54442d18), 8816678312871386365, -8886531266256864049},  // 3.141592653589793
	{types.Float8T, math.Float64frombits(0x400921fb54442d18), -1, 8919694076526062676},                    // 3.141592653589793
	{types.Float8T, math.Float64frombits(0x400921fb54442d18), 42, 3146977405942099852},                    // 3.141592653589793
	{types.Float8T, math.Float64frombits(0x7e37e43c8800759c), 0, -6436401550964349922},                    // 1e+300
	{types.Float8T, math.Float64frombits(0x7e37e43c8800759c), 8816678312871386365, 982079225417220847},    // 1e+300
	{types.Float8T, math.Float64frombits(0x7e37e43c8800759c), -1, -5330157058153071690},                   // 1e+300
	{types.Float8T, math.Float64frombits(0x7e37e43c8800759c), 42, -5945202299453194585},                   // 1e+300
	{types.Float8T, math.Float64frombits(0x81a56e1fc2f8f359), 0, -7728374972425036590},                    // -1e-300
	{types.Float8T, math.Float64frombits(0x81a56e1fc2f8f359), 8816678312871386365, 1814073374123979150},   // -1e-300
	{types.Float8T, math.Float64frombits(0x81a56e1fc2f8f359), -1, -4836366310495091084},                   // -1e-300
	{types.Float8T, math.Float64frombits(0x81a56e1fc2f8f359), 42, -6415250198946332780},                   // -1e-300
	{types.Float8T, math.Float64frombits(0x0000000000000001), 0, -6988697407173885264},                    // 5e-324
	{types.Float8T, math.Float64frombits(0x0000000000000001), 8816678312871386365, 2268351864360085331},   // 5e-324
	{types.Float8T, math.Float64frombits(0x0000000000000001), -1, 83009847301165024},                      // 5e-324
	{types.Float8T, math.Float64frombits(0x0000000000000001), 42, -6424115764914791627},                   // 5e-324
	{types.Float8T, math.Float64frombits(0x7fefffffffffffff), 0, -6179952993476499411},                    // 1.7976931348623157e+308
	{types.Float8T, math.Float64frombits(0x7fefffffffffffff), 8816678312871386365, -2044426549491617000},  // 1.7976931348623157e+308
	{types.Float8T, math.Float64frombits(0x7fefffffffffffff), -1, -2326132227948316650},                   // 1.7976931348623157e+308
	{types.Float8T, math.Float64frombits(0x7fefffffffffffff), 42, 1081191653763885601},                    // 1.7976931348623157e+308
	{types.Float8T, math.Float64frombits(0x7ff0000000000000), 0, -4973912021728129854},                    // Infinity
	{types.Float8T, math.Float64frombits(0x7ff0000000000000), 8816678312871386365, -4970436883654098436},  // Infinity
	{types.Float8T, math.Float64frombits(0x7ff0000000000000), -1, 7493403773338927829},                    // Infinity
	{types.Float8T, math.Float64frombits(0x7ff0000000000000), 42, 5902286530516458022},                    // Infinity
	{types.Float8T, math.Float64frombits(0xfff0000000000000), 0, 58695627279844080},                       // -Infinity
	{types.Float8T, math.Float64frombits(0xfff0000000000000), 8816678312871386365, 7927086137625499499},   // -Infinity
	{types.Float8T, math.Float64frombits(0xfff0000000000000), -1, -9044916755288003409},                   // -Infinity
	{types.Float8T, math.Float64frombits(0xfff0000000000000), 42, 8662575402614437175},                    // -Infinity
	{types.Float8T, math.Float64frombits(0x7ff8000000000000), 0, 4719788943832604568},                     // NaN
	{types.Float8T, math.Float64frombits(0x7ff8000000000000), 8816678312871386365, -6475869854796787835},  // NaN
	{types.Float8T, math.Float64frombits(0x7ff8000000000000), -1, 1566968029372236855},                    // NaN
	{types.Float8T, math.Float64frombits(0x7ff8000000000000), 42, -4570345281452345396},                   // NaN
	{types.Float4T, float64(math.Float32frombits(0x00000000)), 0, 0},                                      // 0
	{types.Float4T, float64(math.Float32frombits(0x00000000)), 8816678312871386365, 8816678312871386365},  // 0
	{types.Float4T, float64(math.Float32frombits(0x00000000)), -1, -1},                                    // 0
	{types.Float4T, float64(math.Float32frombits(0x00000000)), 42, 42},                                    // 0
	{types.Float4T, float64(math.Float32frombits(0x80000000)), 0, 0},                                      // -0
	{types.Float4T, float64(math.Float32frombits(0x80000000)), 8816678312871386365, 8816678312871386365},  // -0
	{types.Float4T, float64(math.Float32frombits(0x80000000)), -1, -1},                                    // -0
	{types.Float4T, float64(math.Float32frombits(0x80000000)), 42, 42},                                    // -0
	{types.Float4T, float64(math.Float32frombits(0x3f800000)), 0, 4033440226552636220},                    // 1
	{types.Float4T, float64(math.Float32frombits(0x3f800000)), 8816678312871386365, 3988910132942752730},  // 1
	{types.Float4T, float64(math.Float32frombits(0x3f800000)), -1, 2963906028543945686},                   // 1
	{types.Float4T, float64(math.Float32frombits(0x3f800000)), 42, 2768542458102369876},                   // 1
	{types.Float4T, float64(math.Float32frombits(0xbf800000)), 0, 7568378172490282248},                    // -1
	{types.Float4T, float64(math.Float32frombits(0xbf800000)), 8816678312871386365, 7565654817107693635},  // -1
	{types.Float4T, float64(math.Float32frombits(0xbf800000)), -1, -8963245616636741022},                  // -1
	{types.Float4T, float64(math.Float32frombits(0xbf800000)), 42, 1744860738333074681},                   // -1
	{types.Float4T, float64(math.Float32frombits(0x3dcccccd)), 0, 45699830491884902},                      // 0.1
	{types.Float4T, float64(math.Float32frombits(0x3dcccccd)), 8816678312871386365, -6747671251798447639}, // 0.1
	{types.Float4T, float64(math.Float32frombits(0x3dcccccd)), -1, 3077896303472963099},                   // 0.1
	{types.Float4T, float64(math.Float32frombits(0x3dcccccd)), 42, 4906899486223959186},                   // 0.1
	{types.Float4T, float64(math.Float32frombits(0x3fc00000)), 0, 6158159405676898674},                    // 1.5
	{types.Float4T, float64(math.Float32frombits(0x3fc00000)), 8816678312871386365, -2826383321045882978}, // 1.5
	{types.Float4T, float64(math.Float32frombits(0x3fc00000)), -1, -8408947781555335340},                  // 1.5
	{types.Float4T, float64(math.Float32frombits(0x3fc00000)), 42, -5832320990282095783},                  // 1.5
	{types.Float4T, float64(math.Float32frombits(0x7f7fffff)), 0, -8264235364741046398},                   // 3.4028235e+38
	{types.Float4T, float64(math.Float32frombits(0x7f7fffff)), 8816678312871386365, 5333628030290755591},  // 3.4028235e+38
	{types.Float4T, float64(math.Float32frombits(0x7f7fffff)), -1, -1144897042069400543},                  // 3.4028235e+38
	{types.Float4T, float64(math.Float32frombits(0x7f7fffff)), 42, -8063754923080656561},                  // 3.4028235e+38
	{types.Float4T, float64(math.Float32frombits(0x00000001)), 0, -9086320680330523503},                   // 1e-45
	{types.Float4T, float64(math.Float32frombits(0x00000001)), 8816678312871386365, -471815522760733818},  // 1e-45
	{types.Float4T, float64(math.Float32frombits(0x00000001)), -1, 3432837688180326606},                   // 1e-45
	{types.Float4T, float64(math.Float32frombits(0x00000001)), 42, 9174761444485554419},                   // 1e-45
	{types.Float4T, float64(math.Float32frombits(0x7f800000)), 0, -4973912021728129854},                   // Infinity
	{types.Float4T, float64(math.Float32frombits(0x7f800000)), 8816678312871386365, -4970436883654098436}, // Infinity
	{types.Float4T, float64(math.Float32frombits(0x7f800000)), -1, 7493403773338927829},                   // Infinity
	{types.Float4T, float64(math.Float32frombits(0x7f800000)), 42, 5902286530516458022},                   // Infinity
	{types.Float4T, float64(math.Float32frombits(0xff800000)), 0, 58695627279844080},                      // -Infinity
	{types.Float4T, float64(math.Float32frombits(0xff800000)), 8816678312871386365, 7927086137625499499},  // -Infinity
	{types.Float4T, float64(math.Float32frombits(0xff800000)), -1, -9044916755288003409},                  // -Infinity
	{types.Float4T, float64(math.Float32frombits(0xff800000)), 42, 8662575402614437175},                   // -Infinity
	{types.Float4T, float64(math.Float32frombits(0x7fc00000)), 0, 4719788943832604568},                    // NaN
	{types.Float4T, float64(math.Float32frombits(0x7fc00000)), 8816678312871386365, -6475869854796787835}, // NaN
	{types.Float4T, float64(math.Float32frombits(0x7fc00000)), -1, 1566968029372236855},                   // NaN
	{types.Float4T, float64(math.Float32frombits(0x7fc00000)), 42, -4570345281452345396},                  // NaN
	{types.NumericT, num("0"), 0, -1},
	{types.NumericT, num("0"), 8816678312871386365, 8816678312871386364},
	{types.NumericT, num("0"), -1, -2},
	{types.NumericT, num("0"), 42, 41},
	{types.NumericT, num("0.000"), 0, -1},
	{types.NumericT, num("0.000"), 8816678312871386365, 8816678312871386364},
	{types.NumericT, num("0.000"), -1, -2},
	{types.NumericT, num("0.000"), 42, 41},
	{types.NumericT, num("-0.00"), 0, -1},
	{types.NumericT, num("-0.00"), 8816678312871386365, 8816678312871386364},
	{types.NumericT, num("-0.00"), -1, -2},
	{types.NumericT, num("-0.00"), 42, 41},
	{types.NumericT, num("1"), 0, -7507508252608306360},
	{types.NumericT, num("1"), 8816678312871386365, -3231555093127941538},
	{types.NumericT, num("1"), -1, -5912392024773661094},
	{types.NumericT, num("1"), 42, -2742590637814259228},
	{types.NumericT, num("-1"), 0, -7507508252608306360},
	{types.NumericT, num("-1"), 8816678312871386365, -3231555093127941538},
	{types.NumericT, num("-1"), -1, -5912392024773661094},
	{types.NumericT, num("-1"), 42, -2742590637814259228},
	{types.NumericT, num("1.0"), 0, -7507508252608306360},
	{types.NumericT, num("1.0"), 8816678312871386365, -3231555093127941538},
	{types.NumericT, num("1.0"), -1, -5912392024773661094},
	{types.NumericT, num("1.0"), 42, -2742590637814259228},
	{types.NumericT, num("1.50"), 0, -8828336294488843818},
	{types.NumericT, num("1.50"), 8816678312871386365, 1234047083305210387},
	{types.NumericT, num("1.50"), -1, 820671459781823312},
	{types.NumericT, num("1.50"), 42, -4021664855446081778},
	{types.NumericT, num("1.5"), 0, -8828336294488843818},
	{types.NumericT, num("1.5"), 8816678312871386365, 1234047083305210387},
	{types.NumericT, num("1.5"), -1, 820671459781823312},
	{types.NumericT, num("1.5"), 42, -4021664855446081778},
	{types.NumericT, num("5"), 0, 2972014631659419408},
	{types.NumericT, num("5"), 8816678312871386365, 2412887143868902394},
	{types.NumericT, num("5"), -1, 6928780350650334886},
	{types.NumericT, num("5"), 42, 6364502801791943830},
	{types.NumericT, num("-5"), 0, 2972014631659419408},
	{types.NumericT, num("-5"), 8816678312871386365, 2412887143868902394},
	{types.NumericT, num("-5"), -1, 6928780350650334886},
	{types.NumericT, num("-5"), 42, 6364502801791943830},
	{types.NumericT, num("10"), 0, -219908382603017346},
	{types.NumericT, num("10"), 8816678312871386365, 3161032435659866577},
	{types.NumericT, num("10"), -1, 3662531788871070956},
	{types.NumericT, num("10"), 42, 8809559530540175716},
	{types.NumericT, num("100"), 0, 2026427994494054899},
	{types.NumericT, num("100"), 8816678312871386365, -3879215986038224534},
	{types.NumericT, num("100"), -1, -5058854510379549506},
	{types.NumericT, num("100"), 42, 8330202616442546927},
	{types.NumericT, num("1000"), 0, -4472182450358367966},
	{types.NumericT, num("1000"), 8816678312871386365, 7869483101049934923},
	{types.NumericT, num("1000"), -1, -3332888806539194917},
	{types.NumericT, num("1000"), 42, -4231339995148463609},
	{types.NumericT, num("9999"), 0, 247439845080503643},
	{types.NumericT, num("9999"), 8816678312871386365, -992710135904545882},
	{types.NumericT, num("9999"), -1, 2113990252004130744},
	{types.NumericT, num("9999"), 42, 7915458725433715625},
	{types.NumericT, num("10000"), 0, -7507508252608306359},
	{types.NumericT, num("10000"), 8816678312871386365, -3231555093127941537},
	{types.NumericT, num("10000"), -1, -5912392024773661093},
	{types.NumericT, num("10000"), 42, -2742590637814259227},
	{types.NumericT, num("10001"), 0, 8142302191801602713},
	{types.NumericT, num("10001"), 8816678312871386365, -4703353340516484960},
	{types.NumericT, num("10001"), -1, -4157903521385213037},
	{types.NumericT, num("10001"), 42, 4778945435464722843},
	{types.NumericT, num("99999999"), 0, 845164906318813942},
	{types.NumericT, num("99999999"), 8816678312871386365, 4865561266155461126},
	{types.NumericT, num("99999999"), -1, 5946285599917451571},
	{types.NumericT, num("99999999"), 42, 1012516066542693362},
	{types.NumericT, num("100000000"), 0, -7507508252608306358},
	{types.NumericT, num("100000000"), 8816678312871386365, -3231555093127941540},
	{types.NumericT, num("100000000"), -1, -5912392024773661096},
	{types.NumericT, num("100000000"), 42, -2742590637814259226},
	{types.NumericT, num("12345.678"), 0, -7224554725567017098},
	{types.NumericT, num("12345.678"), 8816678312871386365, -4016348884958903928},
	{types.NumericT, num("12345.678"), -1, 7331491194125978280},
	{types.NumericT, num("12345.678"), 42, 2991329348836776220},
	{types.NumericT, num("-12345.678"), 0, -7224554725567017098},
	{types.NumericT, num("-12345.678"), 8816678312871386365, -4016348884958903928},
	{types.NumericT, num("-12345.678"), -1, 7331491194125978280},
	{types.NumericT, num("-12345.678"), 42, 2991329348836776220},
	{types.NumericT, num("0.1"), 0, 4472182450358367965},
	{types.NumericT, num("0.1"), 8816678312871386365, -7869483101049934924},
	{types.NumericT, num("0.1"), -1, 3332888806539194916},
	{types.NumericT, num("0.1"), 42, 4231339995148463608},
	{types.NumericT, num("0.5"), 0, 3180246706024362763},
	{types.NumericT, num("0.5"), 8816678312871386365, 1392207227984804232},
	{types.NumericT, num("0.5"), -1, 5384478373166960588},
	{types.NumericT, num("0.5"), 42, 5132967137608766943},
	{types.NumericT, num("0.0001"), 0, 7507508252608306359},
	{types.NumericT, num("0.0001"), 8816678312871386365, 3231555093127941537},
	{types.NumericT, num("0.0001"), -1, 5912392024773661093},
	{types.NumericT, num("0.0001"), 42, 2742590637814259227},
	{types.NumericT, num("0.00001"), 0, 4472182450358367964},
	{types.NumericT, num("0.00001"), 8816678312871386365, -7869483101049934923},
	{types.NumericT, num("0.00001"), -1, 3332888806539194917},
	{types.NumericT, num("0.00001"), 42, 4231339995148463609},
	{types.NumericT, num("0.00012345"), 0, -6815753078977912298},
	{types.NumericT, num("0.00012345"), 8816678312871386365, -4412738633035170369},
	{types.NumericT, num("0.00012345"), -1, -5687927123606961572},
	{types.NumericT, num("0.00012345"), 42, 3443824592964392319},
	{types.NumericT, num("1234.5678"), 0, 2525100193475520665},
	{types.NumericT, num("1234.5678"), 8816678312871386365, -7525075763379556873},
	{types.NumericT, num("1234.5678"), -1, 2475839773665056831},
	{types.NumericT, num("1234.5678"), 42, -1207041003512611385},
	{types.NumericT, num("3.14159"), 0, 6638886692331506076},
	{types.NumericT, num("3.14159"), 8816678312871386365, 2105151782721383526},
	{types.NumericT, num("3.14159"), -1, -5734862122420055289},
	{types.NumericT, num("3.14159"), 42, 3348155840525977206},
	{types.NumericT, num("1e20"), 0, -7507508252608306355},
	{types.NumericT, num("1e20"), 8816678312871386365, -3231555093127941541},
	{types.NumericT, num("1e20"), -1, -5912392024773661089},
	{types.NumericT, num("1e20"), 42, -2742590637814259231},
	{types.NumericT, num("1e-20"), 0, 7507508252608306355},
	{types.NumericT, num("1e-20"), 8816678312871386365, 3231555093127941541},
	{types.NumericT, num("1e-20"), -1, 5912392024773661089},
	{types.NumericT, num("1e-20"), 42, 2742590637814259231},
	{types.NumericT, num("1.23e-10"), 0, 3699374229279451339},
	{types.NumericT, num("1.23e-10"), 8816678312871386365, -4569701159246069328},
	{types.NumericT, num("1.23e-10"), -1, -3589538624061061159},
	{types.NumericT, num("1.23e-10"), 42, 5724717990920992724},
	{types.NumericT, num("123456789012345678901234567890"), 0, 8487920599073440460},
	{types.NumericT, num("123456789012345678901234567890"), 8816678312871386365, 3091938004562491620},
	{types.NumericT, num("123456789012345678901234567890"), -1, -1288234743866069476},
	{types.NumericT, num("123456789012345678901234567890"), 42, 9036133119094016897},
	{types.NumericT, num("99999999.99999999"), 0, 8966457295286834579},
	{types.NumericT, num("99999999.99999999"), 8816678312871386365, 1509499107364571202},
	{types.NumericT, num("99999999.99999999"), -1, -3547187863403813143},
	{types.NumericT, num("99999999.99999999"), 42, 1382882945319022636},
	{types.NumericT, num("0.000000000000000000000000000001"), 0, -2026427994494054901},
	{types.NumericT, num("0.000000000000000000000000000001"), 8816678312871386365, 3879215986038224530},
	{types.NumericT, num("0.000000000000000000000000000001"), -1, 5058854510379549510},
	{types.NumericT, num("0.000000000000000000000000000001"), 42, -8330202616442546921},
	{types.NumericT, num("100000000000000000000.0000000000000001"), 0, -757688301570888363},
	{types.NumericT, num("100000000000000000000.0000000000000001"), 8816678312871386365, 3539593313811780971},
	{types.NumericT, num("100000000000000000000.0000000000000001"), -1, -4661744644299255922},
	{types.NumericT, num("100000000000000000000.0000000000000001"), 42, 1764434275346540420},
	{types.NumericT, num("NaN"), 0, 0},
	{types.NumericT, num("NaN"), 8816678312871386365, 8816678312871386365},
	{types.NumericT, num("NaN"), -1, -1},
	{types.NumericT, num("NaN"), 42, 42},
	{types.NumericT, num("Infinity"), 0, 0},
	{types.NumericT, num("Infinity"), 8816678312871386365, 8816678312871386365},
	{types.NumericT, num("Infinity"), -1, -1},
	{types.NumericT, num("Infinity"), 42, 42},
	{types.NumericT, num("-Infinity"), 0, 0},
	{types.NumericT, num("-Infinity"), 8816678312871386365, 8816678312871386365},
	{types.NumericT, num("-Infinity"), -1, -1},
	{types.NumericT, num("-Infinity"), 42, 42},
	{types.TextT, "", 0, -6939563903564495251},
	{types.TextT, "", 8816678312871386365, -5700645584453517373},
	{types.TextT, "", -1, -5142811166230430645},
	{types.TextT, "", 42, 6158832220375811857},
	{types.TextT, "a", 0, 3591986179850072241},
	{types.TextT, "a", 8816678312871386365, -6705225459120232837},
	{types.TextT, "a", -1, 8688456822845412000},
	{types.TextT, "a", 42, 6942402718208252407},
	{types.TextT, "ab", 0, 2833316173711343549},
	{types.TextT, "ab", 8816678312871386365, 596009030900183869},
	{types.TextT, "ab", -1, 3639176434904646991},
	{types.TextT, "ab", 42, 1055583026507242713},
	{types.TextT, "abc", 0, -6747756470228489321},
	{types.TextT, "abc", 8816678312871386365, 3628778498291917250},
	{types.TextT, "abc", -1, 1911237551546830967},
	{types.TextT, "abc", 42, 4423357919252764502},
	{types.TextT, "abcd", 0, -1038429303365892052},
	{types.TextT, "abcd", 8816678312871386365, 4029384952263848046},
	{types.TextT, "abcd", -1, -8506387423880103258},
	{types.TextT, "abcd", 42, 8078444844130423812},
	{types.TextT, "hello", 0, 3449563369152288809},
	{types.TextT, "hello", 8816678312871386365, -2635279551741001039},
	{types.TextT, "hello", -1, 3444675288696985985},
	{types.TextT, "hello", 42, -5084431038376545807},
	{types.TextT, "hello world", 0, 6947366892317592103},
	{types.TextT, "hello world", 8816678312871386365, 7664296498819024037},
	{types.TextT, "hello world", -1, -2165252861418169415},
	{types.TextT, "hello world", 42, -3513769554600704881},
	{types.TextT, "hello world!", 0, -2866487628948787489},
	{types.TextT, "hello world!", 8816678312871386365, -1886269529411655687},
	{types.TextT, "hello world!", -1, -1372292274548325517},
	{types.TextT, "hello world!", 42, 2479580040493412857},
	{types.TextT, "hello world!!", 0, 2407105755976055416},
	{types.TextT, "hello world!!", 8816678312871386365, 7458898085804086944},
	{types.TextT, "hello world!!", -1, -6174377532640492380},
	{types.TextT, "hello world!!", 42, -3322402259041673096},
	{types.TextT, "abcdefghijklmnopqrstuvw", 0, -1198571854151947912},
	{types.TextT, "abcdefghijklmnopqrstuvw", 8816678312871386365, -7324642668702903167},
	{types.TextT, "abcdefghijklmnopqrstuvw", -1, 8540048242465105909},
	{types.TextT, "abcdefghijklmnopqrstuvw", 42, 8481204888633122338},
	{types.TextT, "abcdefghijklmnopqrstuvwx", 0, -1933194731779935345},
	{types.TextT, "abcdefghijklmnopqrstuvwx", 8816678312871386365, -10959101940276370},
	{types.TextT, "abcdefghijklmnopqrstuvwx", -1, -1203456767747787834},
	{types.TextT, "abcdefghijklmnopqrstuvwx", 42, 6361211217781023591},
	{types.TextT, "abcdefghijklmnopqrstuvwxy", 0, 5649064133428767341},
	{types.TextT, "abcdefghijklmnopqrstuvwxy", 8816678312871386365, 1383018584709609407},
	{types.TextT, "abcdefghijklmnopqrstuvwxy", -1, -5957734741082924352},
	{types.TextT, "abcdefghijklmnopqrstuvwxy", 42, 7081056386789377078},
	{types.TextT, "a ", 0, -3512776558617168100},
	{types.TextT, "a ", 8816678312871386365, 3566788156499709406},
	{types.TextT, "a ", -1, -3294724349183919854},
	{types.TextT, "a ", 42, -1150392041401447948},
	{types.TextT, " a", 0, -5842779780053121190},
	{types.TextT, " a", 8816678312871386365, -4914483885741449242},
	{types.TextT, " a", -1, -4910069544183660926},
	{types.TextT, " a", 42, 4868004525832506443},
	{types.TextT, "héllo", 0, 2465157995015290115},
	{types.TextT, "héllo", 8816678312871386365, 3506307356728073920},
	{types.TextT, "héllo", -1, 4805052016769612239},
	{types.TextT, "héllo", 42, 8741200099159613028},
	{types.TextT, "日本語", 0, 2870829529307104068},
	{types.TextT, "日本語", 8816678312871386365, -8050275759738715173},
	{types.TextT, "日本語", -1, 721106236517436916},
	{types.TextT, "日本語", 42, -7533093163681083669},
	{types.TextT, "🐘 elephant", 0, -4327945355604189698},
	{types.TextT, "🐘 elephant", 8816678312871386365, -6395446638429232107},
	{types.TextT, "🐘 elephant", -1, 4910690273752688483},
	{types.TextT, "🐘 elephant", 42, -3242206081384258875},
	{types.TextT, "Ünïcödé ŧëxŧ", 0, 8770451549913242757},
	{types.TextT, "Ünïcödé ŧëxŧ", 8816678312871386365, -5669670839396871650},
	{types.TextT, "Ünïcödé ŧëxŧ", -1, 6468428833386683937},
	{types.TextT, "Ünïcödé ŧëxŧ", 42, -1464539472168692953},
	{types.TextT, "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", 0, -6927006773748011226},
	{types.TextT, "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", 8816678312871386365, 894331291974510311},
	{types.TextT, "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", -1, 4423172905527254427},
	{types.TextT, "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", 42, -4714062759430863775},
	{types.TextT, "0", 0, 2234665679637250028},
	{types.TextT, "0", 8816678312871386365, 975037833717148454},
	{types.TextT, "0", -1, 2055767203615483082},
	{types.TextT, "0", 42, -6680945296119143173},
	{types.TextT, "NULL", 0, 5850377020046908422},
	{types.TextT, "NULL", 8816678312871386365, 8606996650014922287},
	{types.TextT, "NULL", -1, -8707244568107559226},
	{types.TextT, "NULL", 42, -411697282473977998},
	{types.BpcharT, "", 0, -6939563903564495251},
	{types.BpcharT, "", 8816678312871386365, -5700645584453517373},
	{types.BpcharT, "", -1, -5142811166230430645},
	{types.BpcharT, "", 42, 6158832220375811857},
	{types.BpcharT, " ", 0, -6939563903564495251},
	{types.BpcharT, " ", 8816678312871386365, -5700645584453517373},
	{types.BpcharT, " ", -1, -5142811166230430645},
	{types.BpcharT, " ", 42, 6158832220375811857},
	{types.BpcharT, "a", 0, 3591986179850072241},
	{types.BpcharT, "a", 8816678312871386365, -6705225459120232837},
	{types.BpcharT, "a", -1, 8688456822845412000},
	{types.BpcharT, "a", 42, 6942402718208252407},
	{types.BpcharT, "a   ", 0, 3591986179850072241},
	{types.BpcharT, "a   ", 8816678312871386365, -6705225459120232837},
	{types.BpcharT, "a   ", -1, 8688456822845412000},
	{types.BpcharT, "a   ", 42, 6942402718208252407},
	{types.BpcharT, " a", 0, -5842779780053121190},
	{types.BpcharT, " a", 8816678312871386365, -4914483885741449242},
	{types.BpcharT, " a", -1, -4910069544183660926},
	{types.BpcharT, " a", 42, 4868004525832506443},
	{types.BpcharT, "abc  ", 0, -6747756470228489321},
	{types.BpcharT, "abc  ", 8816678312871386365, 3628778498291917250},
	{types.BpcharT, "abc  ", -1, 1911237551546830967},
	{types.BpcharT, "abc  ", 42, 4423357919252764502},
	{types.BpcharT, "héllo ", 0, 2465157995015290115},
	{types.BpcharT, "héllo ", 8816678312871386365, 3506307356728073920},
	{types.BpcharT, "héllo ", -1, 4805052016769612239},
	{types.BpcharT, "héllo ", 42, 8741200099159613028},
	{types.BpcharT, "hello world!  ", 0, -2866487628948787489},
	{types.BpcharT, "hello world!  ", 8816678312871386365, -1886269529411655687},
	{types.BpcharT, "hello world!  ", -1, -1372292274548325517},
	{types.BpcharT, "hello world!  ", 42, 2479580040493412857},
	{types.BpcharT, "12345678901234567890", 0, -1089059294022494728},
	{types.BpcharT, "12345678901234567890", 8816678312871386365, -8029783602589936038},
	{types.BpcharT, "12345678901234567890", -1, 7347550290188449693},
	{types.BpcharT, "12345678901234567890", 42, 1101906015690817797},
	{types.BoolT, false, 0, 4154612158245552303},
	{types.BoolT, false, 8816678312871386365, -4403592609991167795},
	{types.BoolT, false, -1, -4140905993450701875},
	{types.BoolT, false, 42, -8162688053457160230},
	{types.BoolT, true, 0, -3670598878359251130},
	{types.BoolT, true, 8816678312871386365, 5968994663651403477},
	{types.BoolT, true, -1, 1505930170527472848},
	{types.BoolT, true, 42, 2207685931686633351},
	{types.DateT, int32(10957), 0, 4154612158245552303},                                         // 2000-01-01
	{types.DateT, int32(10957), 8816678312871386365, -4403592609991167795},                      // 2000-01-01
	{types.DateT, int32(10957), -1, -4140905993450701875},                                       // 2000-01-01
	{types.DateT, int32(10957), 42, -8162688053457160230},                                       // 2000-01-01
	{types.DateT, int32(0), 0, -9067010975138725602},                                            // 1970-01-01
	{types.DateT, int32(0), 8816678312871386365, -7791128061482025433},                          // 1970-01-01
	{types.DateT, int32(0), -1, 5895671563238071097},                                            // 1970-01-01
	{types.DateT, int32(0), 42, -5012071576806421383},                                           // 1970-01-01
	{types.DateT, int32(10956), 0, -1888257769727981238},                                        // 1999-12-31
	{types.DateT, int32(10956), 8816678312871386365, -5017072347659237694},                      // 1999-12-31
	{types.DateT, int32(10956), -1, 6481520839006961279},                                        // 1999-12-31
	{types.DateT, int32(10956), 42, -2218543911767281624},                                       // 1999-12-31
	{types.DateT, int32(10958), 0, -3670598878359251130},                                        // 2000-01-02
	{types.DateT, int32(10958), 8816678312871386365, 5968994663651403477},                       // 2000-01-02
	{types.DateT, int32(10958), -1, 1505930170527472848},                                        // 2000-01-02
	{types.DateT, int32(10958), 42, 2207685931686633351},                                        // 2000-01-02
	{types.DateT, int32(19782), 0, 8051018284886573209},                                         // 2024-02-29
	{types.DateT, int32(19782), 8816678312871386365, -7425094147693931516},                      // 2024-02-29
	{types.DateT, int32(19782), -1, -5850056616003880315},                                       // 2024-02-29
	{types.DateT, int32(19782), 42, 2065615839915913757},                                        // 2024-02-29
	{types.DateT, int32(-25508), 0, 2998902055413110742},                                        // 1900-03-01
	{types.DateT, int32(-25508), 8816678312871386365, -2663328575615561526},                     // 1900-03-01
	{types.DateT, int32(-25508), -1, 207974318495430757},                                        // 1900-03-01
	{types.DateT, int32(-25508), 42, 2368475843929063906},                                       // 1900-03-01
	{types.DateT, int32(-719162), 0, 1587041295697442648},                                       // 0001-01-01
	{types.DateT, int32(-719162), 8816678312871386365, -7515971407706873240},                    // 0001-01-01
	{types.DateT, int32(-719162), -1, -1309876738138770669},                                     // 0001-01-01
	{types.DateT, int32(-719162), 42, -1649865524099769506},                                     // 0001-01-01
	{types.DateT, int32(-2440550), 0, 3471922032724561486},                                      // 4713-01-01 BC
	{types.DateT, int32(-2440550), 8816678312871386365, 1721047049352616190},                    // 4713-01-01 BC
	{types.DateT, int32(-2440550), -1, 8738237932148852851},                                     // 4713-01-01 BC
	{types.DateT, int32(-2440550), 42, -2974338371196686482},                                    // 4713-01-01 BC
	{types.DateT, int32(2145042905), 0, 1319840227561600204},                                    // 5874897-12-31
	{types.DateT, int32(2145042905), 8816678312871386365, 5515330421375935455},                  // 5874897-12-31
	{types.DateT, int32(2145042905), -1, -540684874357252548},                                   // 5874897-12-31
	{types.DateT, int32(2145042905), 42, -4657510296497603055},                                  // 5874897-12-31
	{types.DateT, types.DatePosInfinity, 0, -9109110466470504941},                               // infinity
	{types.DateT, types.DatePosInfinity, 8816678312871386365, -6050265599104649060},             // infinity
	{types.DateT, types.DatePosInfinity, -1, 8384907054876656385},                               // infinity
	{types.DateT, types.DatePosInfinity, 42, -4216469540329842178},                              // infinity
	{types.DateT, types.DateNegInfinity, 0, 1977219185673256887},                                // -infinity
	{types.DateT, types.DateNegInfinity, 8816678312871386365, 4938542303000433043},              // -infinity
	{types.DateT, types.DateNegInfinity, -1, 6110074166949006181},                               // -infinity
	{types.DateT, types.DateNegInfinity, 42, 2517197663604715469},                               // -infinity
	{types.TimestampT, int64(946684800000000), 0, 4154612158245552303},                          // 2000-01-01 00:00:00
	{types.TimestampT, int64(946684800000000), 8816678312871386365, -4403592609991167795},       // 2000-01-01 00:00:00
	{types.TimestampT, int64(946684800000000), -1, -4140905993450701875},                        // 2000-01-01 00:00:00
	{types.TimestampT, int64(946684800000000), 42, -8162688053457160230},                        // 2000-01-01 00:00:00
	{types.TimestampT, int64(0), 0, 4905020852221420173},                                        // 1970-01-01 00:00:00
	{types.TimestampT, int64(0), 8816678312871386365, -3440498327794531266},                     // 1970-01-01 00:00:00
	{types.TimestampT, int64(0), -1, 5718447560330518612},                                       // 1970-01-01 00:00:00
	{types.TimestampT, int64(0), 42, -8243203292778116186},                                      // 1970-01-01 00:00:00
	{types.TimestampT, int64(946684799999999), 0, -1888257769727981238},                         // 1999-12-31 23:59:59.999999
	{types.TimestampT, int64(946684799999999), 8816678312871386365, -5017072347659237694},       // 1999-12-31 23:59:59.999999
	{types.TimestampT, int64(946684799999999), -1, 6481520839006961279},                         // 1999-12-31 23:59:59.999999
	{types.TimestampT, int64(946684799999999), 42, -2218543911767281624},                        // 1999-12-31 23:59:59.999999
	{types.TimestampT, int64(946684800000001), 0, -3670598878359251130},                         // 2000-01-01 00:00:00.000001
	{types.TimestampT, int64(946684800000001), 8816678312871386365, 5968994663651403477},        // 2000-01-01 00:00:00.000001
	{types.TimestampT, int64(946684800000001), -1, 1505930170527472848},                         // 2000-01-01 00:00:00.000001
	{types.TimestampT, int64(946684800000001), 42, 2207685931686633351},                         // 2000-01-01 00:00:00.000001
	{types.TimestampT, int64(1714979289123456), 0, -4717878437226177379},                        // 2024-05-06 07:08:09.123456
	{types.TimestampT, int64(1714979289123456), 8816678312871386365, -5287380232421356612},      // 2024-05-06 07:08:09.123456
	{types.TimestampT, int64(1714979289123456), -1, -2808981173556961416},                       // 2024-05-06 07:08:09.123456
	{types.TimestampT, int64(1714979289123456), 42, -5244042978435269510},                       // 2024-05-06 07:08:09.123456
	{types.TimestampT, int64(-2208988800000000), 0, 2258165363704478327},                        // 1900-01-01 00:00:00
	{types.TimestampT, int64(-2208988800000000), 8816678312871386365, 6990286382535641050},      // 1900-01-01 00:00:00
	{types.TimestampT, int64(-2208988800000000), -1, 4473316353651144146},                       // 1900-01-01 00:00:00
	{types.TimestampT, int64(-2208988800000000), 42, 364401909201486380},                        // 1900-01-01 00:00:00
	{types.TimestampT, int64(-62135596800000000), 0, -6687948877792058550},                      // 0001-01-01 00:00:00
	{types.TimestampT, int64(-62135596800000000), 8816678312871386365, -9036721804170987338},    // 0001-01-01 00:00:00
	{types.TimestampT, int64(-62135596800000000), -1, 2855178858098428123},                      // 0001-01-01 00:00:00
	{types.TimestampT, int64(-62135596800000000), 42, -537921362534193582},                      // 0001-01-01 00:00:00
	{types.TimestampT, int64(-210835180800000000), 0, -6649048872296088223},                     // 4713-11-24 00:00:00 BC
	{types.TimestampT, int64(-210835180800000000), 8816678312871386365, -881285015013343099},    // 4713-11-24 00:00:00 BC
	{types.TimestampT, int64(-210835180800000000), -1, -2482239668043118026},                    // 4713-11-24 00:00:00 BC
	{types.TimestampT, int64(-210835180800000000), 42, -2152328411313012573},                    // 4713-11-24 00:00:00 BC
	{types.TimestampT, int64(6249223226096789000), 0, -6795065677917012252},                     // 200000-01-01 12:34:56.789
	{types.TimestampT, int64(6249223226096789000), 8816678312871386365, -4785222430486303167},   // 200000-01-01 12:34:56.789
	{types.TimestampT, int64(6249223226096789000), -1, 3835285630181776311},                     // 200000-01-01 12:34:56.789
	{types.TimestampT, int64(6249223226096789000), 42, 1283672438996550759},                     // 200000-01-01 12:34:56.789
	{types.TimestampT, types.TimestampPosInfinity, 0, 1977219185673256887},                      // infinity
	{types.TimestampT, types.TimestampPosInfinity, 8816678312871386365, 4938542303000433043},    // infinity
	{types.TimestampT, types.TimestampPosInfinity, -1, 6110074166949006181},                     // infinity
	{types.TimestampT, types.TimestampPosInfinity, 42, 2517197663604715469},                     // infinity
	{types.TimestampT, types.TimestampNegInfinity, 0, -9109110466470504941},                     // -infinity
	{types.TimestampT, types.TimestampNegInfinity, 8816678312871386365, -6050265599104649060},   // -infinity
	{types.TimestampT, types.TimestampNegInfinity, -1, 8384907054876656385},                     // -infinity
	{types.TimestampT, types.TimestampNegInfinity, 42, -4216469540329842178},                    // -infinity
	{types.TimestampTZT, int64(946684800000000), 0, 4154612158245552303},                        // 2000-01-01 00:00:00+00
	{types.TimestampTZT, int64(946684800000000), 8816678312871386365, -4403592609991167795},     // 2000-01-01 00:00:00+00
	{types.TimestampTZT, int64(946684800000000), -1, -4140905993450701875},                      // 2000-01-01 00:00:00+00
	{types.TimestampTZT, int64(946684800000000), 42, -8162688053457160230},                      // 2000-01-01 00:00:00+00
	{types.TimestampTZT, int64(0), 0, 4905020852221420173},                                      // 1970-01-01 00:00:00+00
	{types.TimestampTZT, int64(0), 8816678312871386365, -3440498327794531266},                   // 1970-01-01 00:00:00+00
	{types.TimestampTZT, int64(0), -1, 5718447560330518612},                                     // 1970-01-01 00:00:00+00
	{types.TimestampTZT, int64(0), 42, -8243203292778116186},                                    // 1970-01-01 00:00:00+00
	{types.TimestampTZT, int64(1714972089123456), 0, -243778586442483314},                       // 2024-05-06 05:08:09.123456+00
	{types.TimestampTZT, int64(1714972089123456), 8816678312871386365, 1521485491938887910},     // 2024-05-06 05:08:09.123456+00
	{types.TimestampTZT, int64(1714972089123456), -1, -4604204430304500181},                     // 2024-05-06 05:08:09.123456+00
	{types.TimestampTZT, int64(1714972089123456), 42, -575249469771830932},                      // 2024-05-06 05:08:09.123456+00
	{types.TimestampTZT, int64(-3772526400000000), 0, -8947578398903678193},                     // 1850-06-15 12:00:00+00
	{types.TimestampTZT, int64(-3772526400000000), 8816678312871386365, -1702893213066248634},   // 1850-06-15 12:00:00+00
	{types.TimestampTZT, int64(-3772526400000000), -1, 7947412260428184151},                     // 1850-06-15 12:00:00+00
	{types.TimestampTZT, int64(-3772526400000000), 42, 8408630313771163533},                     // 1850-06-15 12:00:00+00
	{types.TimestampTZT, types.TimestampPosInfinity, 0, 1977219185673256887},                    // infinity
	{types.TimestampTZT, types.TimestampPosInfinity, 8816678312871386365, 4938542303000433043},  // infinity
	{types.TimestampTZT, types.TimestampPosInfinity, -1, 6110074166949006181},                   // infinity
	{types.TimestampTZT, types.TimestampPosInfinity, 42, 2517197663604715469},                   // infinity
	{types.TimestampTZT, types.TimestampNegInfinity, 0, -9109110466470504941},                   // -infinity
	{types.TimestampTZT, types.TimestampNegInfinity, 8816678312871386365, -6050265599104649060}, // -infinity
	{types.TimestampTZT, types.TimestampNegInfinity, -1, 8384907054876656385},                   // -infinity
	{types.TimestampTZT, types.TimestampNegInfinity, 42, -4216469540329842178},                  // -infinity
	{types.T{ID: types.Varchar, Len: 20}, "", 0, -6939563903564495251},
	{types.T{ID: types.Varchar, Len: 20}, "", 8816678312871386365, -5700645584453517373},
	{types.T{ID: types.Varchar, Len: 20}, "", -1, -5142811166230430645},
	{types.T{ID: types.Varchar, Len: 20}, "", 42, 6158832220375811857},
	{types.T{ID: types.Varchar, Len: 20}, "a", 0, 3591986179850072241},
	{types.T{ID: types.Varchar, Len: 20}, "a", 8816678312871386365, -6705225459120232837},
	{types.T{ID: types.Varchar, Len: 20}, "a", -1, 8688456822845412000},
	{types.T{ID: types.Varchar, Len: 20}, "a", 42, 6942402718208252407},
	{types.T{ID: types.Varchar, Len: 20}, "a ", 0, -3512776558617168100},
	{types.T{ID: types.Varchar, Len: 20}, "a ", 8816678312871386365, 3566788156499709406},
	{types.T{ID: types.Varchar, Len: 20}, "a ", -1, -3294724349183919854},
	{types.T{ID: types.Varchar, Len: 20}, "a ", 42, -1150392041401447948},
	{types.T{ID: types.Varchar, Len: 20}, "héllo wörld", 0, 6639232088034648728},
	{types.T{ID: types.Varchar, Len: 20}, "héllo wörld", 8816678312871386365, -145319379157667650},
	{types.T{ID: types.Varchar, Len: 20}, "héllo wörld", -1, 1084021839919039485},
	{types.T{ID: types.Varchar, Len: 20}, "héllo wörld", 42, -7380926532374147185},
	{types.T{ID: types.Bpchar, Len: 12}, "            ", 0, -6939563903564495251},
	{types.T{ID: types.Bpchar, Len: 12}, "            ", 8816678312871386365, -5700645584453517373},
	{types.T{ID: types.Bpchar, Len: 12}, "            ", -1, -5142811166230430645},
	{types.T{ID: types.Bpchar, Len: 12}, "            ", 42, 6158832220375811857},
	{types.T{ID: types.Bpchar, Len: 12}, "a           ", 0, 3591986179850072241},
	{types.T{ID: types.Bpchar, Len: 12}, "a           ", 8816678312871386365, -6705225459120232837},
	{types.T{ID: types.Bpchar, Len: 12}, "a           ", -1, 8688456822845412000},
	{types.T{ID: types.Bpchar, Len: 12}, "a           ", 42, 6942402718208252407},
	{types.T{ID: types.Bpchar, Len: 12}, "abc         ", 0, -6747756470228489321},
	{types.T{ID: types.Bpchar, Len: 12}, "abc         ", 8816678312871386365, 3628778498291917250},
	{types.T{ID: types.Bpchar, Len: 12}, "abc         ", -1, 1911237551546830967},
	{types.T{ID: types.Bpchar, Len: 12}, "abc         ", 42, 4423357919252764502},
	{types.T{ID: types.Bpchar, Len: 12}, "héllo       ", 0, 2465157995015290115},
	{types.T{ID: types.Bpchar, Len: 12}, "héllo       ", 8816678312871386365, 3506307356728073920},
	{types.T{ID: types.Bpchar, Len: 12}, "héllo       ", -1, 4805052016769612239},
	{types.T{ID: types.Bpchar, Len: 12}, "héllo       ", 42, 8741200099159613028},
}

func TestHashExtendedMatchesPostgres(t *testing.T) {
	for _, c := range pgHashCases {
		got := types.HashExtended(c.t, c.d, uint64(c.seed))
		if got != uint64(c.want) {
			t.Errorf("HashExtended(%s, %v, %d) = %d, PostgreSQL says %d", c.t, c.d, c.seed, int64(got), c.want)
		}
	}
}

// Values that compare equal must hash equal, whatever their representation.
func TestHashExtendedEqualValues(t *testing.T) {
	seed := types.HashPartitionSeed
	same := []struct {
		t    types.T
		a, b any
	}{
		// Any NaN bit pattern hashes as PostgreSQL's canonical NaN.
		{types.Float8T, math.NaN(), math.Float64frombits(0x7FF8000000000000)},
		{types.Float8T, math.Float64frombits(0xFFF8000000000123), math.NaN()},
		{types.Float8T, math.Copysign(0, -1), 0.0},
		// real widens to double precision.
		{types.Float4T, 1.5, 1.5},
		{types.NumericT, num("1.50"), num("1.5")},
		{types.NumericT, num("1E+4"), num("10000.000")},
		{types.NumericT, num("-0.00"), num("0")},
		{types.BpcharT, "ab   ", "ab"},
	}
	for _, c := range same {
		ha, hb := types.HashExtended(c.t, c.a, seed), types.HashExtended(c.t, c.b, seed)
		if ha != hb {
			t.Errorf("%s: hash(%v) = %d, hash(%v) = %d; want equal", c.t, c.a, ha, c.b, hb)
		}
	}
	// The integer types share one hash opfamily: a value hashes the same
	// as smallint, integer or bigint.
	for _, v := range []int64{-32768, -1, 0, 1, 42, 32767} {
		h2 := types.HashExtended(types.Int2T, v, seed)
		h4 := types.HashExtended(types.Int4T, v, seed)
		h8 := types.HashExtended(types.Int8T, v, seed)
		if h2 != h4 || h4 != h8 {
			t.Errorf("%d: int2 %d, int4 %d, int8 %d; want equal", v, h2, h4, h8)
		}
	}
	// Real and double precision agree on values both represent.
	for _, v := range []float64{-2.5, 0.25, 1, 1e10} {
		if h4, h8 := types.HashExtended(types.Float4T, v, seed), types.HashExtended(types.Float8T, v, seed); h4 != h8 {
			t.Errorf("%g: float4 %d, float8 %d; want equal", v, h4, h8)
		}
	}
}

func TestHashCombine64(t *testing.T) {
	// hash_combine64(0, x) = x + the constant: the first column's hash is
	// only offset, as in PostgreSQL.
	if got := types.HashCombine64(0, 1); got != 0x49a0f4dd15e5a8e4 {
		t.Errorf("HashCombine64(0, 1) = %#x", got)
	}
}
