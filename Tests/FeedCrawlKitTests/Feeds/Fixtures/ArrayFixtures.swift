// Fixtures modelled on PunkAPI v2 (bare top-level arrays of beers; fields trimmed).

enum ArrayFixtures {
    /// Beers 1-9, 169 and 314 (`image_url: null`); beers 1 and 3 share the keg.png placeholder.
    static let beers = #"""
[
 {
  "id": 1,
  "name": "Buzz",
  "tagline": "A Real Bitter Experience.",
  "first_brewed": "09/2007",
  "image_url": "https://images.punkapi.com/v2/keg.png",
  "abv": 4.5,
  "volume": {
   "value": 20,
   "unit": "litres"
  },
  "contributed_by": "Sam Mason <samjbmason>"
 },
 {
  "id": 2,
  "name": "Trashy Blonde",
  "tagline": "You Know You Shouldn't",
  "first_brewed": "04/2008",
  "image_url": "https://images.punkapi.com/v2/2.png",
  "abv": 4.1,
  "volume": {
   "value": 20,
   "unit": "litres"
  },
  "contributed_by": "Sam Mason <samjbmason>"
 },
 {
  "id": 3,
  "name": "Berliner Weisse With Yuzu - B-Sides",
  "tagline": "Japanese Citrus Berliner Weisse.",
  "first_brewed": "11/2015",
  "image_url": "https://images.punkapi.com/v2/keg.png",
  "abv": 4.2,
  "volume": {
   "value": 20,
   "unit": "litres"
  },
  "contributed_by": "Sam Mason <samjbmason>"
 },
 {
  "id": 4,
  "name": "Pilsen Lager",
  "tagline": "Unleash the Yeast Series.",
  "first_brewed": "09/2013",
  "image_url": "https://images.punkapi.com/v2/4.png",
  "abv": 6.3,
  "volume": {
   "value": 20,
   "unit": "litres"
  },
  "contributed_by": "Ali Skinner <AliSkinner>"
 },
 {
  "id": 5,
  "name": "Avery Brown Dredge",
  "tagline": "Bloggers' Imperial Pilsner.",
  "first_brewed": "02/2011",
  "image_url": "https://images.punkapi.com/v2/5.png",
  "abv": 7.2,
  "volume": {
   "value": 20,
   "unit": "litres"
  },
  "contributed_by": "Sam Mason <samjbmason>"
 },
 {
  "id": 6,
  "name": "Electric India",
  "tagline": "Vibrant Hoppy Saison.",
  "first_brewed": "05/2013",
  "image_url": "https://images.punkapi.com/v2/6.png",
  "abv": 5.2,
  "volume": {
   "value": 20,
   "unit": "litres"
  },
  "contributed_by": "Sam Mason <samjbmason>"
 },
 {
  "id": 7,
  "name": "AB:12",
  "tagline": "Imperial Black Belgian Ale.",
  "first_brewed": "07/2012",
  "image_url": "https://images.punkapi.com/v2/7.png",
  "abv": 11.2,
  "volume": {
   "value": 20,
   "unit": "litres"
  },
  "contributed_by": "Sam Mason <samjbmason>"
 },
 {
  "id": 8,
  "name": "Fake Lager",
  "tagline": "Bohemian Pilsner.",
  "first_brewed": "03/2013",
  "image_url": "https://images.punkapi.com/v2/8.png",
  "abv": 4.7,
  "volume": {
   "value": 20,
   "unit": "litres"
  },
  "contributed_by": "Sam Mason <samjbmason>"
 },
 {
  "id": 9,
  "name": "AB:07",
  "tagline": "Whisky Cask-Aged Scotch Ale.",
  "first_brewed": "03/2010",
  "image_url": "https://images.punkapi.com/v2/9.png",
  "abv": 12.5,
  "volume": {
   "value": 20,
   "unit": "litres"
  },
  "contributed_by": "Sam Mason <samjbmason>"
 },
 {
  "id": 169,
  "name": "AB:19",
  "tagline": "A Blend of Two Barrel-aged Imperial Saisons.",
  "first_brewed": "06/2012",
  "image_url": "https://images.punkapi.com/v2/169.png",
  "abv": 13.1,
  "volume": {
   "value": 20,
   "unit": "litres"
  },
  "contributed_by": "Sam Mason <samjbmason>"
 },
 {
  "id": 314,
  "name": "Manic Mango",
  "tagline": "Mango IPA.",
  "first_brewed": "2018",
  "image_url": null,
  "abv": 6,
  "volume": {
   "value": 20,
   "unit": "litres"
  },
  "contributed_by": "John Jenkman <johnjenkman>"
 }
]
"""#

    /// PunkAPI's Boom-style 400 body.
    static let badRequest = #"{"statusCode":400,"error":"Bad Request","message":"Invalid query params","data":[{"location":"query","param":"per_page","msg":"Must be a number greater than 0 and less than 80"}]}"#
}
