// Fixtures modelled on the Apollo fullstack-tutorial server's real responses.

enum LaunchesFixtures {
    /// Real page 1 of `launches` (20 items, ids 110...91, cursor "1583556631", hasMore true;
    /// id 108 has a null missionPatch), compacted.
    static let page1 = #"""
{"data":{"launches":{"cursor":"1583556631","hasMore":true,"launches":[{"id":"110","site":"KSC LC 39A","mission":{"missionPatch":"https://imgur.com/E7fjUBD.png","name":"CRS-21"},"rocket":{"name":"Falcon 9"}},{"id":"109","site":"CCAFS SLC 40","mission":{"missionPatch":"https://images2.imgbox.com/d2/3b/bQaWiil0_o.png","name":"Starlink-15 (v1.0)"},"rocket":{"name":"Falcon 9"}},{"id":"108","site":"VAFB SLC 4E","mission":{"missionPatch":null,"name":"Sentinel-6 Michael Freilich"},"rocket":{"name":"Falcon 9"}},{"id":"107","site":"KSC LC 39A","mission":{"missionPatch":"https://i.imgur.com/t5R4BAQ.png","name":"Crew-1"},"rocket":{"name":"Falcon 9"}},{"id":"106","site":"CCAFS SLC 40","mission":{"missionPatch":"https://i.imgur.com/Ehe9AgY.png","name":"GPS III SV04 (Sacagawea)"},"rocket":{"name":"Falcon 9"}},{"id":"105","site":"CCAFS SLC 40","mission":{"missionPatch":"https://images2.imgbox.com/d2/3b/bQaWiil0_o.png","name":"Starlink-14 (v1.0)"},"rocket":{"name":"Falcon 9"}},{"id":"104","site":"KSC LC 39A","mission":{"missionPatch":"https://images2.imgbox.com/d2/3b/bQaWiil0_o.png","name":"Starlink-13 (v1.0)"},"rocket":{"name":"Falcon 9"}},{"id":"103","site":"KSC LC 39A","mission":{"missionPatch":"https://images2.imgbox.com/d2/3b/bQaWiil0_o.png","name":"Starlink-12 (v1.0)"},"rocket":{"name":"Falcon 9"}},{"id":"102","site":"KSC LC 39A","mission":{"missionPatch":"https://images2.imgbox.com/d2/3b/bQaWiil0_o.png","name":"Starlink-11 (v1.0)"},"rocket":{"name":"Falcon 9"}},{"id":"101","site":"CCAFS SLC 40","mission":{"missionPatch":"https://images2.imgbox.com/43/33/36WPntCu_o.png","name":"SAOCOM 1B, GNOMES-1, Tyvak-0172"},"rocket":{"name":"Falcon 9"}},{"id":"100","site":"CCAFS SLC 40","mission":{"missionPatch":"https://images2.imgbox.com/d2/3b/bQaWiil0_o.png","name":"Starlink-10 (v1.0) & SkySat 19-21"},"rocket":{"name":"Falcon 9"}},{"id":"99","site":"KSC LC 39A","mission":{"missionPatch":"https://images2.imgbox.com/d2/3b/bQaWiil0_o.png","name":"Starlink-9 (v1.0) & BlackSky Global 5-6"},"rocket":{"name":"Falcon 9"}},{"id":"98","site":"CCAFS SLC 40","mission":{"missionPatch":"https://images2.imgbox.com/ad/77/CDzoMWTH_o.png","name":"ANASIS-II"},"rocket":{"name":"Falcon 9"}},{"id":"97","site":"CCAFS SLC 40","mission":{"missionPatch":"https://images2.imgbox.com/5f/63/UmHyB3Y6_o.png","name":"GPS III SV03 (Columbus)"},"rocket":{"name":"Falcon 9"}},{"id":"96","site":"CCAFS SLC 40","mission":{"missionPatch":"https://images2.imgbox.com/d2/3b/bQaWiil0_o.png","name":"Starlink-8 & SkySat 16-18"},"rocket":{"name":"Falcon 9"}},{"id":"95","site":"CCAFS SLC 40","mission":{"missionPatch":"https://images2.imgbox.com/d2/3b/bQaWiil0_o.png","name":"Starlink 7"},"rocket":{"name":"Falcon 9"}},{"id":"94","site":"KSC LC 39A","mission":{"missionPatch":"https://images2.imgbox.com/ab/79/Wyc9K7fv_o.png","name":"CCtCap Demo Mission 2"},"rocket":{"name":"Falcon 9"}},{"id":"93","site":"KSC LC 39A","mission":{"missionPatch":"https://images2.imgbox.com/d2/3b/bQaWiil0_o.png","name":"Starlink 6"},"rocket":{"name":"Falcon 9"}},{"id":"92","site":"KSC LC 39A","mission":{"missionPatch":"https://images2.imgbox.com/d2/3b/bQaWiil0_o.png","name":"Starlink 5"},"rocket":{"name":"Falcon 9"}},{"id":"91","site":"CCAFS SLC 40","mission":{"missionPatch":"https://images2.imgbox.com/15/2b/NAcsTEB6_o.png","name":"CRS-20"},"rocket":{"name":"Falcon 9"}}]}}}
"""#

    /// Null elements, null mission/site/patch, numeric id, `__typename` keys, unknown keys.
    static let oddPage = #"""
{"data":{"launches":{"__typename":"LaunchConnection","cursor":"1543861920","hasMore":true,"launches":[
 {"__typename":"Launch","id":"90","site":"CCAFS SLC 40","mission":{"__typename":"Mission","name":"Starlink 4","missionPatch":"https://images2.imgbox.com/d2/3b/bQaWiil0_o.png"}},
 null,
 {"id":"89","site":null,"mission":null},
 {"id":88,"site":"KSC LC 39A","mission":{"name":null,"missionPatch":""},"rocket":{"name":"Falcon 9"}},
 {"site":"VAFB SLC 4E","mission":{"name":"Iridium NEXT Mission 8","missionPatch":"https://images2.imgbox.com/f0/64/7Cp4Ukp3_o.png"}},
 "garbage"
]}}}
"""#

    /// Partial success: data with a null element, and an error whose path names it.
    static let partialPage = #"""
{"errors":[{"message":"Launch 85 could not be loaded.","locations":[{"line":1,"column":70}],"path":["launches","launches",1],"extensions":{"code":"INTERNAL_SERVER_ERROR"}}],
 "data":{"launches":{"cursor":"1500000000","hasMore":false,"launches":[
  {"id":"86","site":"KSC LC 39A","mission":{"name":"CRS-18","missionPatch":"https://images2.imgbox.com/0a/46/f8yeqHvW_o.png"}},
  null
 ]}}}
"""#

    /// HTTP 400 validation failure (errors only), as captured from an Apollo client test.
    static let validationError = #"""
{
  "errors": [
    {
      "message": "Cannot query field \"mySite\" on type \"Launch\". Did you mean \"site\"?",
      "extensions": {
        "code": "GRAPHQL_VALIDATION_FAILED"
      }
    }
  ]
}
"""#

    /// Real body from the hosted server (HTTP 200).
    static let persistedQueryNotFound = #"{"errors":[{"message":"PersistedQueryNotFound","extensions":{"code":"PERSISTED_QUERY_NOT_FOUND"}}]}"#

    /// Paging past the end (fullstack-tutorial#79/#91): errors, data null.
    static let nullCursorError = #"""
{"errors":[{"message":"Cannot return null for non-nullable field LaunchConnection.cursor.","locations":[{"line":3,"column":5}],"path":["launches","cursor"],"extensions":{"code":"INTERNAL_SERVER_ERROR","exception":{"stacktrace":["Error: Cannot return null"]}}}],"data":null}
"""#

    /// PARTIAL LaunchDetails result as captured (no rocket / isBooked).
    static let detailPartial = #"""
{
  "data": {
    "launch": {
      "__typename": "Launch",
      "id": "83",
      "site": "CCAFS SLC 40",
      "mission": {
        "__typename": "Mission",
        "name": "Amos-17",
        "missionPatch": "https://images2.imgbox.com/a0/ab/XUoByiuR_o.png"
      }
    }
  }
}
"""#

    /// A full LaunchDetails answer (modelled on the schema; values from the hosted data).
    static let detailFull = #"""
{"data":{"launch":{"id":"108","site":"VAFB SLC 4E","mission":{"name":"Sentinel-6 Michael Freilich","missionPatch":null},"rocket":{"name":"Falcon 9","type":"FT"},"isBooked":false}}}
"""#

    static let detailUnknownID = #"{"data":{"launch":null}}"#
}
