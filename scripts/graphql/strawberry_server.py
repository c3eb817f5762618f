# The Apollo fullstack tutorial's schema (schema.graphql beside this file) served by Strawberry
# (code first: the types below print as that schema), ASGI under uvicorn:
#
#   .build/graphql/bin/python scripts/graphql/strawberry_server.py --port N --image-base URL --log FILE
#
# Resolvers as the tutorial's: launches through its paginateResults (tutorial.py), missionPatch
# LARGE unless asked SMALL. The knobs (tutorial.DEFAULT_KNOBS, POST /admin/knobs) make resolvers
# throw (missionPatch, id), guard fields behind the token, or serve the schema without a field.
import enum
import sys
from typing import List, Optional

import strawberry
from graphql import GraphQLError
from strawberry.asgi import GraphQL

import tutorial

STATE = None


def unauthenticated(what):
    return GraphQLError("You must be logged in to see " + what, extensions={"code": "UNAUTHENTICATED"})


def headers(info):
    return info.context["request"].headers


@strawberry.enum
class PatchSize(enum.Enum):
    SMALL = "SMALL"
    LARGE = "LARGE"


def build_schema(without=None):
    """The tutorial's schema; without="Rocket.type": the same less that field."""

    @strawberry.type
    class Rocket:
        id: strawberry.ID
        name: Optional[str]
        if without != "Rocket.type":
            type: Optional[str]

    @strawberry.type
    class Mission:
        data: strawberry.Private[dict]

        @strawberry.field
        def name(self) -> Optional[str]:
            return self.data["name"]

        @strawberry.field
        def mission_patch(self, size: Optional[PatchSize] = strawberry.UNSET) -> Optional[str]:
            if STATE.patch_fails(self.data["launchId"]):
                raise Exception("the image service did not answer")
            return STATE.mission_patch(self.data, size.value if size else None)

    @strawberry.type
    class Launch:
        data: strawberry.Private[dict]

        @strawberry.field
        def id(self) -> strawberry.ID:
            if STATE.id_fails(self.data["id"]):
                raise Exception("could not resolve the id of a launch")
            return strawberry.ID(self.data["id"])

        @strawberry.field
        def site(self) -> Optional[str]:
            return self.data["site"]

        @strawberry.field
        def mission(self) -> Optional[Mission]:
            return Mission(data=dict(self.data["mission"], launchId=self.data["id"]))

        @strawberry.field
        def rocket(self, info: strawberry.Info) -> Optional[Rocket]:
            if STATE.guarded("Launch.rocket", headers(info)):
                raise unauthenticated("the rocket")
            r = self.data["rocket"]
            return Rocket(**{k: v for k, v in r.items() if k != "type" or without != "Rocket.type"})

        @strawberry.field
        def is_booked(self, info: strawberry.Info) -> bool:
            if STATE.guarded("Launch.isBooked", headers(info)):
                raise unauthenticated("whether you booked it")
            return False  # as the tutorial's isBookedOnLaunch for no user

    @strawberry.type
    class LaunchConnection:
        cursor: str
        has_more: bool
        launches: List[Optional[Launch]]

    @strawberry.type
    class User:
        id: strawberry.ID
        email: str
        trips: List[Optional[Launch]]

    @strawberry.type
    class Query:
        @strawberry.field
        def launches(self, info: strawberry.Info, page_size: Optional[int] = strawberry.UNSET,
                     after: Optional[str] = strawberry.UNSET) -> LaunchConnection:
            if STATE.needs_auth() and not STATE.authorized(headers(info)):
                raise unauthenticated("launches")
            page = STATE.launches_page(tutorial.DEFAULT if page_size is strawberry.UNSET else page_size,
                                       None if after is strawberry.UNSET else after)
            return LaunchConnection(cursor=page["cursor"], has_more=page["hasMore"],
                                    launches=[Launch(data=launch) for launch in page["launches"]])

        @strawberry.field
        def launch(self, info: strawberry.Info, id: strawberry.ID) -> Optional[Launch]:
            if STATE.needs_auth() and not STATE.authorized(headers(info)):
                raise unauthenticated("a launch")
            launch = STATE.launch(id)
            return Launch(data=launch) if launch else None

        @strawberry.field
        def me(self) -> Optional[User]:
            return None

    @strawberry.type
    class Mutation:
        @strawberry.field
        def login(self, email: Optional[str] = strawberry.UNSET) -> Optional[str]:
            return STATE.login_token(email or None)

    return strawberry.Schema(query=Query, mutation=Mutation)


SCHEMA = build_schema()


def make_app(image_base, log_path):
    global STATE
    STATE = tutorial.State(image_base, log_path)
    apps = {None: GraphQL(SCHEMA, graphql_ide=None),
            "Rocket.type": GraphQL(build_schema(without="Rocket.type"), graphql_ide=None)}

    async def graphql_app(scope, receive, send):
        await apps[STATE.knobs["removeField"]](scope, receive, send)

    return STATE, tutorial.wrap(STATE, graphql_app, "strawberry")


if __name__ == "__main__":
    tutorial.serve(make_app, sys.argv[1:], "strawberry")
