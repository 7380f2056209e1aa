/** The bare table inside the client-drawn floor of a signed-in frame (../layout.tsx). */
export { default } from '../../rows/page';
