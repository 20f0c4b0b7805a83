# A container image of loopgate: the static binary alone on a distroless
# base (no shell, no package manager; /tmp for the replay's spill files,
# a non-root user). docs/install.md, "Container image".
#
#   docker build -t loopgate .
#   docker run --rm -v "$HOME/.claude/projects:/in:ro" loopgate replay /in
FROM golang:1.26-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -trimpath -tags urfave_cli_no_docs -ldflags "-s -w" -o /out/loopgate .

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/loopgate /usr/local/bin/loopgate
ENTRYPOINT ["/usr/local/bin/loopgate"]
