// Fixtures modelled on real Pixabay responses (shapes from the public docs and captured bodies).

enum PixabayFixtures {
    /// A real compact body (per_page=3): total 1954, totalHits 500, `collections`, one `userImageURL: ""`.
    static let compactPage = #"""
{"total":1954,"totalHits":500,"hits":[{"id":3386356,"pageURL":"https://pixabay.com/photos/piglet-mammal-species-fauna-3386356/","type":"photo","tags":"piglet, mammal, species","previewURL":"https://cdn.pixabay.com/photo/2018/05/09/22/44/piglet-3386356_150.jpg","previewWidth":150,"previewHeight":99,"webformatURL":"https://pixabay.com/get/g559a0719535d311c566d451e688a266be9cd5eb79181f69ae9b8a23980fa65b85791056a7ba710f07af034e8cabbd60a7bcac780e5dec332b502dad8f69197e1_640.jpg","webformatWidth":640,"webformatHeight":426,"largeImageURL":"https://pixabay.com/get/g7cc7554c615e04109808008e4e4020b9ecae94aa679adff08908b38c942e488c9946e6e4c8f58d9674ab059276fe072e19f63bf79af2aa375d7ef278d2b34475_1280.jpg","imageWidth":4851,"imageHeight":3234,"imageSize":3682743,"views":131796,"downloads":70377,"collections":398,"likes":439,"comments":123,"user_id":3128024,"user":"RoyBuri","userImageURL":"https://cdn.pixabay.com/user/2017/10/30/22-28-19-779_250x250.png"},{"id":242520,"pageURL":"https://pixabay.com/photos/guinea-pig-cavy-pet-guinea-rodent-242520/","type":"photo","tags":"guinea pig, cavy, pet","previewURL":"https://cdn.pixabay.com/photo/2014/01/11/23/40/guinea-pig-242520_150.jpg","previewWidth":150,"previewHeight":99,"webformatURL":"https://pixabay.com/get/g7a4ff5aa08099c4f7c6810f650d33cc9dec0298174f5c8260e0b13a7f9e1cc6f113f41584fd2a2b87eca50bbb9c90235_640.jpg","webformatWidth":640,"webformatHeight":425,"largeImageURL":"https://pixabay.com/get/g760a5346b7b469bbf8a4de22c5ed342e1f9a5ee10d92f1357620b558a312e3cee350bea4e02b4bcf1cec2dba388cde8c10f26361c2ce48da33ab3c7ab4bfacfd_1280.jpg","imageWidth":3008,"imageHeight":2000,"imageSize":966620,"views":105128,"downloads":37314,"collections":268,"likes":226,"comments":34,"user_id":55562,"user":"vantagepointfl","userImageURL":""},{"id":3741880,"pageURL":"https://pixabay.com/photos/piglets-animal-habitat-species-pig-3741880/","type":"photo","tags":"piglets, animal, habitat","previewURL":"https://cdn.pixabay.com/photo/2018/10/12/10/31/piglets-3741880_150.jpg","previewWidth":150,"previewHeight":100,"webformatURL":"https://pixabay.com/get/g0091f2412c34d3448814ea253e4d34dbf55a1fc7707b4c8731cc387d062302bd9aa0dc11d12811708947ea52e3b453d37de7b2639ec3f9d7a67a886771df28d0_640.jpg","webformatWidth":640,"webformatHeight":427,"largeImageURL":"https://pixabay.com/get/g3351f0555bd27475f474dd9d49bd240b53fce39518b354ba104e105db601fb9b181749ecc2c8757c525613185245d192742a06b04352cd2dbe752e5cf6059017_1280.jpg","imageWidth":4900,"imageHeight":3271,"imageSize":4369135,"views":62223,"downloads":50052,"collections":276,"likes":142,"comments":77,"user_id":1377835,"user":"MabelAmber","userImageURL":"https://cdn.pixabay.com/user/2023/04/19/11-42-04-154_250x250.jpg"}]}
"""#

    /// Mixed types and broken hits, as a lenient decoder must take them.
    static let mixedPage = #"""
{"total":"1954","totalHits":500,"hits":[
 {"id":"6000964","tags":"golden gate bridge, fog, traffic","previewURL":"https://cdn.pixabay.com/photo/2021/02/10/05/44/golden-gate-bridge-6000964_150.jpg","webformatURL":"","user":"kauci","userImageURL":"","isLowQuality":0,"isAiGenerated":false,"noAiTraining":true,"collections":"12","newKeyFrom2030":{"nested":[1,2]}},
 {"id":951006.0,"tags":"bridge, golden gates, san francisco","previewURL":"","webformatURL":"https://pixabay.com/get/ge3a36be_640.jpg","user":"carpentiers","isLowQuality":1,"isAiGenerated":"true"},
 "not an object",
 null,
 {"tags":"no id here","previewURL":"https://cdn.pixabay.com/photo/x_150.jpg"},
 {"id":{"weird":true},"previewURL":"javascript:alert(1)","user":""},
 {"id":1325881,"tags":null,"previewURL":null,"user":42,"pageURL":"https://pixabay.com/photos/golden-gate-bridge-1325881/"},
 {"id":12345678901234,"tags":"  multi\nline\ttags  ","previewURL":" https://cdn.pixabay.com/photo/big_150.jpg "}
]}
"""#

    /// The docs' own example: not valid JSON (missing comma, trailing comma, `...`).
    static let docsExample = #"""
{
"total": 4692,
"totalHits": 500,
"hits": [
    {
        "id": 195893,
        "previewURL": "https://cdn.pixabay.com/photo/2013/10/15/09/12/flower-195893_150.jpg"
        "previewWidth": 150,
        "user": "Josch13",
    },
    ...
]
}
"""#

    static let emptyResult = #"{"total":0,"totalHits":0,"hits":[]}"#

    static let errorInvalidKey = "[ERROR 400] Invalid API key. Note: This value is case-sensitive.\n"
    static let errorInvalidKeyShort = "[ERROR 400] Invalid API key"
    static let errorPageOutOfRange = #"[ERROR 400] "page" is out of valid range."#
    static let errorPerPageOutOfRange = #"[ERROR 400] "per_page" is out of valid range."#
    static let errorRateLimit = "API rate limit exceeded"
}
